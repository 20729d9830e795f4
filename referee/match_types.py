"""The match loop's vocabulary: configuration, failure kinds and the frozen result.

Kept apart from the loop itself so that the tournament runner, the CLI and the replay checker
share these types without importing gRPC.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

DEFAULT_DECISION_MS = 1000
DEFAULT_BANK_MS = 60_000
DEFAULT_MAX_STRIKES = 3
DEFAULT_CONNECT_TIMEOUT_MS = 10_000


class FailureKind(str, enum.Enum):
    """The closed list of ways a bot fails (the proto's ``FailureKind``, same order)."""

    OK = "ok"
    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    PROTOCOL_ERROR = "protocol_error"
    CRASHED = "crashed"
    """The bot's process died, or its stream ended or broke, before the match ended."""

    @property
    def proto_value(self) -> str:
        """The wire enum's value name (``FAILURE_KIND_TIMEOUT``...), which protobuf accepts."""
        return f"FAILURE_KIND_{self.name}"


class ConfigError(ValueError):
    """A match configuration the referee refuses; the message names the field and the range."""


@dataclasses.dataclass(frozen=True)
class Clocks:
    """The referee's clocks and strike policy for every seat of a match."""

    decision_ms: int = DEFAULT_DECISION_MS
    """Time for each decision before the bank is touched."""
    bank_ms: int = DEFAULT_BANK_MS
    """Per-seat, per-match time bank: time past ``decision_ms`` is charged to it."""
    max_strikes: int = DEFAULT_MAX_STRIKES
    """Timeouts, illegal actions or protocol errors after which the fallback keeps the seat."""
    connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS
    """How long a seat's bot has to connect before the fallback plays the seat."""

    def __post_init__(self) -> None:
        _check_int("decision_ms", self.decision_ms, 1, 600_000)
        _check_int("bank_ms", self.bank_ms, 0, 3_600_000)
        _check_int("max_strikes", self.max_strikes, 1, 1_000_000)
        _check_int("connect_timeout_ms", self.connect_timeout_ms, 1, 600_000)


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{name}: {value!r} is not allowed; allowed: an integer from {low} to {high}")


@dataclasses.dataclass(frozen=True)
class MatchConfig:
    """What a match is: the game, its rules, the seed and the clocks.

    ``preset`` and ``overrides`` name the rules as :func:`referee.games.make_rules` takes them.
    """

    game: str
    preset: str
    seed: int
    overrides: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    clocks: Clocks = Clocks()
    match_id: str = ""
    """Empty: the service makes one up."""

    def __post_init__(self) -> None:
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed < 2**64:
            raise ConfigError(f"seed: {self.seed!r} is not allowed; allowed: an integer from 0 to 2**64-1")


@dataclasses.dataclass(frozen=True)
class Failure:
    """One recorded failure of one seat."""

    seat: int
    kind: FailureKind
    decision: int
    """Index of the decision (actions applied so far, all seats) during which it happened."""
    message: str
    output: str = ""
    """The end of the bot's own output (a crash's traceback), for the operator only: never sent
    to a bot or written to a replay (it may show the bot's cards)."""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind.value, "decision": self.decision, "message": self.message}

    def for_operator(self) -> str:
        """The words with the bot's output after them: for the operator's eyes only."""
        return self.message + (f"; last output: {self.output}" if self.output else "")


@dataclasses.dataclass(frozen=True)
class SeatResult:
    """One seat's outcome."""

    seat: int
    name: str
    place: int
    """Final place (1 = first, ties shared); a seat taken over is ranked after all others."""
    game_place: int
    """Place by the game's scoring alone."""
    score: int
    strikes: int
    taken_over: bool
    decisions: int
    """Decisions this seat's bot answered itself."""
    think_ms: float
    """Total time the seat's bot took over its answered decisions."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A finished match: standings, failures, timing and the full replay record."""

    match_id: str
    game: str
    rules: Mapping[str, Any]
    seed: int
    seats: tuple[SeatResult, ...]
    failures: tuple[Failure, ...]
    decisions: int
    duration_ms: float
    replay: Mapping[str, Any]
    """The replay (see :mod:`referee.replay`): rules, seed, seats, actions, events, result."""
    decision_clock: tuple[float, ...] = ()
    """``time.perf_counter()`` when each decision was applied: the benchmark derives per-decision
    wall time (the referee's own work included) and throughput windows from it."""

    @property
    def places(self) -> list[int]:
        """Final place per seat."""
        return [s.place for s in self.seats]

    @property
    def scores(self) -> list[int]:
        """Final match points per seat."""
        return [s.score for s in self.seats]

    def summary_json(self) -> dict[str, Any]:
        """Everything but the replay, JSON-ready."""
        return {
            "match_id": self.match_id,
            "game": self.game,
            "rules": dict(self.rules),
            "seed": self.seed,
            "seats": [s.to_json() for s in self.seats],
            "failures": [f.to_json() for f in self.failures],
            "decisions": self.decisions,
            "duration_ms": round(self.duration_ms, 3),
        }

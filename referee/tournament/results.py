"""A played match's outcome as the tournament records, stores and rates it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from referee.tournament.schedule import Match

STATUSES = ("ok", "forfeit")
"""``ok``: played to the end; ``forfeit``: ended early because a bot failed (it is placed last).
Interrupted games are never recorded: their whole deal group is played again."""


class ResultError(ValueError):
    """A match result that does not fit its match; the message says which field is wrong."""


@dataclasses.dataclass(frozen=True)
class Failure:
    """A bot's failure in a match: what went wrong, in which seat, at which of its decisions."""

    kind: str
    """e.g. ``timeout``, ``crash``, ``illegal``, ``protocol`` (the match loop's names)."""
    seat: int
    decision: int
    """0-based index of the seat's decision where it happened (-1: before the first)."""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Failure:
        return cls(
            kind=str(data["kind"]),
            seat=int(data["seat"]),
            decision=int(data["decision"]),
            message=str(data.get("message", "")),
        )


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """One finished match. Per-seat tuples are in seat order, like ``seats``."""

    match_id: str
    table: int
    group: int
    seats: tuple[str, ...]
    places: tuple[int, ...]
    """Finishing place per seat: 1 is first; tied seats share a place (1, 1, 3...)."""
    scores: tuple[float, ...]
    """The game's final score per seat (as the rules count it)."""
    failures: tuple[Failure, ...] = ()
    rotation: int = 0
    seed: int = 0
    duration: float = 0.0
    """Wall-clock seconds the match took."""
    replay: str | None = None
    """Where the match's replay was written, if anywhere."""
    status: str = "ok"

    def __post_init__(self) -> None:
        k = len(self.seats)
        if k < 2 or len(self.places) != k or len(self.scores) != k:
            raise ResultError(
                f"match {self.match_id}: {k} seats need {k} places and {k} scores; "
                f"got {len(self.places)} places and {len(self.scores)} scores"
            )
        if len(set(self.seats)) != k:
            raise ResultError(f"match {self.match_id}: a bot sits twice: {', '.join(self.seats)}")
        for place in self.places:
            expected = 1 + sum(1 for other in self.places if other < place)
            if place != expected:
                raise ResultError(
                    f"match {self.match_id}: places {list(self.places)} are not competition places "
                    f"(1 = first, tied seats share a place, the next place skips: 1, 1, 3)"
                )
        for failure in self.failures:
            if not 0 <= failure.seat < k:
                raise ResultError(f"match {self.match_id}: failure in seat {failure.seat}, seats 0..{k - 1}")
        if self.status not in STATUSES:
            raise ResultError(f"match {self.match_id}: status {self.status!r}; statuses are: {', '.join(STATUSES)}")

    @property
    def group_key(self) -> tuple[int, int]:
        return (self.table, self.group)

    @classmethod
    def for_match(
        cls,
        match: Match,
        places: Sequence[int],
        scores: Sequence[float],
        failures: Sequence[Failure] = (),
        duration: float = 0.0,
        replay: str | None = None,
        status: str = "ok",
    ) -> MatchResult:
        """The result of the scheduled ``match``, with its identity copied from the schedule."""
        return cls(
            match_id=match.match_id,
            table=match.table,
            group=match.group,
            seats=match.seats,
            places=tuple(int(p) for p in places),
            scores=tuple(float(s) for s in scores),
            failures=tuple(failures),
            rotation=match.rotation,
            seed=match.seed,
            duration=duration,
            replay=replay,
            status=status,
        )

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["seats"] = list(self.seats)
        out["places"] = list(self.places)
        out["scores"] = list(self.scores)
        out["failures"] = [f.to_json() for f in self.failures]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchResult:
        return cls(
            match_id=str(data["match_id"]),
            table=int(data["table"]),
            group=int(data["group"]),
            seats=tuple(str(s) for s in data["seats"]),
            places=tuple(int(p) for p in data["places"]),
            scores=tuple(float(s) for s in data["scores"]),
            failures=tuple(Failure.from_json(f) for f in data.get("failures", ())),
            rotation=int(data.get("rotation", 0)),
            seed=int(data.get("seed", 0)),
            duration=float(data.get("duration", 0.0)),
            replay=data.get("replay"),
            status=str(data.get("status", "ok")),
        )

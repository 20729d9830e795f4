"""The bot's own clock: settings, the budget of one decision, and the stopwatch of a search.

Why the bot keeps its own clock: the referee only punishes lateness (a strike, then the
fallback player), so a search bot must stop itself. The budget of a decision is the smaller of
the configured time and a safe share of what the referee grants (``deadline_ms`` before the bank
is touched, and a thin slice of the bank, which must last the whole match). The search checks
the stopwatch between iterations and inside long rollouts, and stops before the next iteration
would likely overrun, so a decision ends within a few per cent of its budget.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping

DEFAULT_MS = 20.0
"""Time per decision by default, in milliseconds."""
DEFAULT_ITERATIONS = 100_000
"""Iteration cap by default: high enough that the clock is what stops a search."""
DEADLINE_SHARE = 0.5
"""Share of the referee's per-decision deadline the bot may use at most."""
TRANSPORT_RESERVE_MS = 2.0
"""Kept back from the deadline for the answer's trip to the referee."""
BANK_SHARE = 0.001
"""Share of the remaining bank one decision may draw on when the deadline is too short."""
STOP_FRACTION = 0.97
"""A search plans to end by this fraction of its budget (the rest absorbs one late iteration)."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a bot owner may set. ``seed=None``: seed from the operating system."""

    ms: float = DEFAULT_MS
    """Time per decision, in milliseconds."""
    iterations: int = DEFAULT_ITERATIONS
    """Most search iterations per decision."""
    seed: int | None = None
    """Seed of the bot's one random generator (determinizations, rollouts, ties)."""
    algorithm: str = "paired"
    """``paired``: determinized search with common random numbers; ``ismcts``: SO-ISMCTS."""

    def __post_init__(self) -> None:
        if not self.ms > 0:
            raise ValueError(f"ms: {self.ms!r} is not allowed; allowed: a number above 0")
        if self.iterations < 1:
            raise ValueError(f"iterations: {self.iterations!r} is not allowed; allowed: 1 or more")
        if self.algorithm not in ("paired", "ismcts"):
            raise ValueError(f"algorithm: {self.algorithm!r} is not allowed; allowed: paired, ismcts")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``TALON_ISMCTS_MS``, ``TALON_ISMCTS_ITERS`` and ``TALON_ISMCTS_SEED``.

        :raises ValueError: naming the variable whose value cannot be read.
        """
        env = os.environ if env is None else env
        values: dict[str, float | int | str | None] = {}
        for name, field, kind in (("TALON_ISMCTS_MS", "ms", float), ("TALON_ISMCTS_ITERS", "iterations", int),
                                  ("TALON_ISMCTS_SEED", "seed", int)):
            text = env.get(name, "").strip()
            if text:
                try:
                    values[field] = kind(text)
                except ValueError:
                    raise ValueError(f"{name}={text!r}: not a {kind.__name__}") from None
        algorithm = env.get("TALON_ISMCTS_ALGO", "").strip()
        if algorithm:
            values["algorithm"] = algorithm
        return cls(**values)  # type: ignore[arg-type]


def decision_budget_s(settings: Settings, deadline_ms: int, bank_ms: int) -> float:
    """Seconds one decision may take: the configured time, capped by the referee's clock.

    A ``deadline_ms`` of 0 means the referee sent no clock (in-process play): the configured
    time alone counts.
    """
    budget_ms = settings.ms
    if deadline_ms > 0:
        safe_ms = max(0.0, DEADLINE_SHARE * deadline_ms - TRANSPORT_RESERVE_MS) + BANK_SHARE * bank_ms
        budget_ms = min(budget_ms, max(safe_ms, 0.5))
    return budget_ms / 1000.0


class Stopwatch:
    """Times one search: when to stop, learned from how long iterations take."""

    __slots__ = ("start", "budget", "plan_end", "hard_end", "slowest", "_last")

    def __init__(self, budget_s: float, start: float | None = None) -> None:
        self.start = time.perf_counter() if start is None else start
        self.budget = budget_s
        self.plan_end = self.start + STOP_FRACTION * budget_s
        self.hard_end = self.start + budget_s
        self.slowest = 0.0
        self._last = self.start

    def lap(self) -> bool:
        """Record that an iteration ended; whether another one is likely to fit."""
        now = time.perf_counter()
        took = now - self._last
        self._last = now
        if took > self.slowest:
            self.slowest = took
        return now + self.slowest < self.plan_end

    def expired(self) -> bool:
        """Whether the budget is spent (checked inside long rollouts)."""
        return time.perf_counter() >= self.hard_end

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

"""The bot's clock: its settings, its budget under the referee's clock, and that it keeps it.

The budget test plays real matches in-process (the referee's codec, the SDK's views, the real
engine) and times every searched decision twice: by the wall clock, as the referee sees it, and
by the thread's CPU time, which only the bot's own work fills. On this shared two-core machine
other processes can take the CPU away in the middle of a decision; that lengthens the wall time
without being the bot's doing. So the test asserts that the bot's own work never runs more than
10% over the budget (CPU time, every decision), and that the wall time stays within 10% of the
budget in all but a small share of decisions, and it prints both distributions.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from ismcts_strength import load_bot_module, play_match
from talon_ismcts.clock import DEFAULT_ITERATIONS, Settings, Stopwatch, decision_budget_s

BUDGET_MS = 20.0


def test_settings_from_environment() -> None:
    assert Settings.from_env({}) == Settings()
    s = Settings.from_env({"TALON_ISMCTS_MS": "35.5", "TALON_ISMCTS_ITERS": "400", "TALON_ISMCTS_SEED": "9",
                           "TALON_ISMCTS_ALGO": "ismcts"})
    assert (s.ms, s.iterations, s.seed, s.algorithm) == (35.5, 400, 9, "ismcts")
    assert Settings().iterations == DEFAULT_ITERATIONS and Settings().seed is None
    with pytest.raises(ValueError, match="TALON_ISMCTS_MS"):
        Settings.from_env({"TALON_ISMCTS_MS": "fast"})
    with pytest.raises(ValueError, match="ms"):
        Settings(ms=0)
    with pytest.raises(ValueError, match="algorithm"):
        Settings(algorithm="alphabeta")


def test_the_budget_stays_well_inside_the_referees_clock() -> None:
    settings = Settings(ms=20)
    assert decision_budget_s(settings, 0, 0) == pytest.approx(0.020)  # no clock sent
    assert decision_budget_s(settings, 1000, 60_000) == pytest.approx(0.020)
    tight = decision_budget_s(settings, 20, 0)  # half the deadline, less the transport reserve
    assert tight == pytest.approx(0.008)
    assert decision_budget_s(settings, 4, 10_000) == pytest.approx(0.010)  # a thin slice of the bank
    assert decision_budget_s(settings, 1, 0) == pytest.approx(0.0005)


def test_stopwatch_plans_to_stop_before_the_budget() -> None:
    watch = Stopwatch(0.010)
    assert watch.lap()
    time.sleep(0.006)
    assert not watch.lap()  # another 6 ms iteration would end past 97% of 10 ms
    assert not watch.expired()
    time.sleep(0.005)
    assert watch.expired()


class _Timed:
    """Wraps a bot: wall and CPU seconds of every decision it searched."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.settings = bot.settings
        self.samples: list[tuple[float, float]] = []

    def on_start(self, welcome: Any) -> None:
        self.bot.on_start(welcome)

    def decide(self, view: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        action = self.bot.decide(view)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        if len(view.legal_actions) > 1:
            self.samples.append((wall, cpu))
        return action


CASES = [("crazy-eights", "classic", 2), ("crazy-eights", "house", 4), ("crazy-eights", "specials", 3),
         ("crazy-eights", "pagat", 2), ("crazy-eights", "countdown", 2), ("crazy-eights", "french", 4),
         ("crazy-rummy", "standard", 3)]


def test_the_bot_never_runs_over_its_budget_by_more_than_ten_percent() -> None:
    ismcts = load_bot_module("ismcts")
    greedy = load_bot_module("greedy")
    samples: list[tuple[float, float]] = []
    for i, (game, preset, players) in enumerate(CASES):
        timed = _Timed(ismcts.IsmctsBot(Settings(ms=BUDGET_MS, seed=i)))
        bots = [timed] + [greedy.GreedyBot() for _ in range(players - 1)]
        play_match(game, preset, bots, seed=50 + i)
        samples += timed.samples
    budget = BUDGET_MS / 1000
    walls = sorted(w for w, _ in samples)
    cpus = sorted(c for _, c in samples)
    late_wall = sum(1 for w in walls if w > 1.1 * budget)
    print(f"\n{len(samples)} searched decisions at {BUDGET_MS} ms: wall p50 {1000 * walls[len(walls) // 2]:.1f} "
          f"p99 {1000 * walls[int(0.99 * (len(walls) - 1))]:.1f} max {1000 * walls[-1]:.1f} ms "
          f"({late_wall} over 110%); CPU max {1000 * cpus[-1]:.1f} ms")
    assert len(samples) >= 200
    assert cpus[-1] <= 1.1 * budget
    assert late_wall <= 0.03 * len(samples)

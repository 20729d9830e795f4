"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS), game-agnostic.

One tree per decision, over the searching seat's information set (Cowling, Powley and Whitehouse,
2012). Each iteration deals one determinization (a guess at every hidden card, from the sound
sampler), walks the tree with the actions legal in *that* deal, expands one new action, plays the
rest out with the game's rollout policy, and credits each node on the path with the reward of the
seat that chose it. Because a node's actions exist in some deals and not others, selection uses
availability counts: a child's exploration term counts the times it *could* have been chosen,
not the parent's visits.

Why ISMCTS rather than plain determinized search (PIMC): statistics are shared across deals, so
the search cannot "see" hidden cards by planning a different line for each deal (strategy
fusion is reduced), and each iteration is as cheap as a PIMC rollout. New children are expanded
in the order the rollout policy prefers, so with very few iterations the search falls back on
the sensible policy instead of on a random choice.

The game plugs in through :class:`Simulation`; the clock through :class:`.clock.Stopwatch`.
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from collections.abc import Sequence
from typing import Any, Protocol

from .clock import Stopwatch

EXPLORATION = 0.7
"""UCB exploration constant for rewards in [0, 1]."""
ALPHA = 0.05
"""Level of the one-sided paired test an action must pass to replace the policy's choice."""
MIN_ROUNDS = 4
"""Rounds before a challenger may be dropped."""
DROP_Z = 1.0
"""A challenger whose mean difference plus this many standard errors is below 0 is dropped."""


class Simulation(Protocol):
    """What a game gives the search for one decision (states are the engine's own)."""

    def determinize(self, rng: random.Random) -> Any:
        """A full state consistent with the seat's information."""

    def fork(self, state: Any, rng: random.Random) -> Any:
        """An independent copy of ``state`` whose chance events draw from ``rng``."""

    def actions(self, state: Any) -> Sequence[Any]:
        """The actions worth searching in ``state`` (legal, possibly pruned), never empty."""

    def apply(self, state: Any, action: Any) -> None:
        """Play ``action`` in ``state``."""

    def done(self, state: Any) -> bool:
        """Whether the horizon (the end of the hand or deal) has been reached."""

    def player(self, state: Any) -> int:
        """The seat to act in ``state``."""

    def prefer(self, state: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        """The rollout policy's choice in ``state`` (expansion order)."""

    def rollout(self, state: Any, rng: random.Random, watch: Stopwatch) -> list[float]:
        """Play to the horizon; every seat's reward in [0, 1]."""

    def rewards(self, state: Any) -> list[float]:
        """Every seat's reward in [0, 1] at the horizon."""


class Node:
    """One node of the information-set tree: statistics of the action that led here."""

    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """The chosen action and what the search saw."""

    action: Any
    iterations: int
    seconds: float
    visits: dict[Any, int]
    values: dict[Any, float]


def search(sim: Simulation, root_actions: Sequence[Any], rng: random.Random, watch: Stopwatch,
           max_iterations: int) -> SearchResult:
    """Search until the stopwatch or ``max_iterations`` says stop; pick the most visited action.

    ``root_actions`` are the searching seat's actions (from its view). At least one iteration
    runs, so the answer always reflects one look ahead.
    """
    root = Node()
    iterations = 0
    while iterations < max_iterations:
        _iterate(sim, root, rng, watch)
        iterations += 1
        if not watch.lap():
            break
    best = _best(root, root_actions)
    visits = {a: root.children[a].visits for a in root_actions if a in root.children}
    values = {a: root.children[a].total / root.children[a].visits
              for a in root_actions if a in root.children and root.children[a].visits}
    return SearchResult(best, iterations, watch.elapsed(), visits, values)


def paired_search(sim: Simulation, root_actions: Sequence[Any], rng: random.Random, watch: Stopwatch,
                  max_iterations: int, seat: int, alpha: float = ALPHA) -> SearchResult:
    """Determinized search with common random numbers, gated by a paired test.

    ``root_actions[0]`` must be the rollout policy's own choice (the *default*). Each round deals
    one determinization and plays every live root action from it, each followed by a rollout
    from the same generator state, so actions are compared on the same cards and the same later
    luck. Only whole rounds count, so the comparison stays paired.

    The answer leaves the default only when the best action beats it by a paired one-sided test
    at level ``alpha``, corrected for the number of challengers (Bonferroni): single decisions
    in these games move the outcome by a few per cent, far below the noise of a few dozen
    rollouts, and picking the noisy maximum would play at random among near-equal moves (and,
    in "draw until you can play" rules, draw again and again). The test makes the search a safe
    improvement on its policy: it deviates where the evidence is strong (the end of a hand,
    special cards, naming a suit the others lack) and otherwise plays the policy's move.
    Challengers that are clearly worse than the default (upper bound below it after a few
    rounds) stop being simulated, so the rounds go to the ones that might win.
    """
    k = len(root_actions)
    challengers = max(1, k - 1)
    z = statistics.NormalDist().inv_cdf(1.0 - alpha / challengers)
    live = list(range(k))
    diffs: list[list[float]] = [[] for _ in range(k)]
    totals = [0.0] * k
    rounds = 0
    while rounds < max_iterations and len(live) > 1:
        deal = sim.determinize(rng)
        seed = rng.getrandbits(64)
        row: dict[int, float] = {}
        for i in live:
            state = sim.fork(deal, random.Random(seed))
            sim.apply(state, root_actions[i])
            row[i] = sim.rollout(state, state._rng, watch)[seat]
            if watch.expired():
                break
        if len(row) < len(live):
            break
        for i, score in row.items():
            totals[i] += score
            diffs[i].append(score - row[0])
        rounds += 1
        if rounds >= MIN_ROUNDS:
            live = [i for i in live if i == 0 or _upper(diffs[i], DROP_Z) > 0.0]
        if not watch.lap():
            break
    choice = 0
    best, best_mean = 0, 0.0
    for i in range(1, k):
        n = len(diffs[i])
        if n >= 2 and sum(diffs[i]) / n > best_mean:
            best, best_mean = i, sum(diffs[i]) / n
    if best and _lower(diffs[best], z) > 0.0:
        choice = best
    visits = {a: len(diffs[i]) for i, a in enumerate(root_actions)}
    values = {a: totals[i] / len(diffs[i]) for i, a in enumerate(root_actions) if diffs[i]}
    return SearchResult(root_actions[choice], rounds, watch.elapsed(), visits, values)


def _mean_se(diffs: Sequence[float]) -> tuple[float, float]:
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def _lower(diffs: Sequence[float], z: float) -> float:
    """Lower confidence bound of the mean paired difference."""
    mean, se = _mean_se(diffs)
    return mean - z * se if se > 0 else (mean if len(diffs) >= 2 else 0.0)


def _upper(diffs: Sequence[float], z: float) -> float:
    """Upper confidence bound of the mean paired difference."""
    mean, se = _mean_se(diffs)
    return mean + z * se if se > 0 else mean


def _best(root: Node, actions: Sequence[Any]) -> Any:
    best, key = actions[0], (-1, -1.0)
    for action in actions:
        child = root.children.get(action)
        if child is None or not child.visits:
            continue
        k = (child.visits, child.total / child.visits)
        if k > key:
            best, key = action, k
    return best


def _iterate(sim: Simulation, root: Node, rng: random.Random, watch: Stopwatch) -> None:
    state = sim.determinize(rng)
    node = root
    path: list[tuple[Node, int]] = []
    expanded = False
    while not sim.done(state):
        player = sim.player(state)
        legal = sim.actions(state)
        children = node.children
        untried = [a for a in legal if a not in children]
        if untried:
            action = sim.prefer(state, legal, rng)
            if action in children or action not in legal:
                action = untried[rng.randrange(len(untried))]
            for a in legal:
                if a in children:
                    children[a].avail += 1
            child = children[action] = Node()
            sim.apply(state, action)
            path.append((child, player))
            expanded = True
            break
        log_term = 0.0
        best_child: Node | None = None
        best_action: Any = None
        best_score = -1.0
        for a in legal:
            ch = children[a]
            ch.avail += 1
            log_term = math.log(ch.avail)
            score = ch.total / ch.visits + EXPLORATION * math.sqrt(log_term / ch.visits)
            if score > best_score:
                best_child, best_action, best_score = ch, a, score
        assert best_child is not None
        sim.apply(state, best_action)
        path.append((best_child, player))
        node = best_child
    rewards = sim.rollout(state, rng, watch) if expanded else sim.rewards(state)
    root.visits += 1
    for child, player in path:
        child.visits += 1
        child.total += rewards[player]

"""One match's worth of play for one seat: the tracker, the clock and the search together.

An agent lives for one match (a warm bot makes a new one per match), owns no global state and
draws every random number from the generator it is given. Forced decisions (one legal action)
are answered at once, after the events are taken in.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any, Protocol

from referee.games.base import RuleSet
from referee.games.crazy_eights.rules import CrazyEightsRules
from talon_sdk.views import EightsAction, EightsView

from .clock import Settings, Stopwatch, decision_budget_s
from .eights import EightsSimulation, root_prune
from .eights_position import from_view, prototype
from .eights_tracker import EightsTracker
from .sampler import Group, InconsistentError, deal
from .search import SearchResult, paired_search, search


class Agent(Protocol):
    """What the bot asks of a game's agent."""

    last: SearchResult | None

    def decide(self, view: Any) -> Any:
        """The action for ``view`` (one of ``view.legal_actions``)."""


HORIZON_ROUNDS = 2
"""Rounds of turns a Crazy Eights rollout plays before estimating (0: play the hand out)."""


def unseen_pool(decks: int, seen: Sequence[int]) -> list[int]:
    """The pack(s) less the cards in ``seen`` (a multiset: two packs hold two of each card)."""
    counts = [decks] * 52
    for card in seen:
        counts[card] -= 1
    return [card for card in range(52) for _ in range(max(0, counts[card]))]


def likely_groups(pool: Sequence[int], groups: Sequence[Group], rng: random.Random) -> list[Group]:
    """``groups`` with the sensible-player assumption made firm, if some deal satisfies that;
    else ``groups`` as they are (the hard evidence only)."""
    assumed = [g.assumed() for g in groups]
    try:
        deal(pool, assumed, rng)
    except InconsistentError:
        return list(groups)
    return assumed


class EightsAgent:
    """A Crazy Eights seat (see the module docstring)."""

    def __init__(self, rules: CrazyEightsRules, seat: int, num_players: int, settings: Settings,
                 rng: random.Random) -> None:
        self.rules = rules
        self.seat = seat
        self.settings = settings
        self.rng = rng
        self.tracker = EightsTracker(rules, seat, num_players)
        self.proto = prototype(rules, num_players)
        self.decks = rules.decks_for(num_players)
        self.turn_cards: list[int] = []
        self.announced = False
        self.last: SearchResult | None = None
        """What the latest search saw (None after a forced decision)."""

    def observe(self, view: EightsView) -> None:
        """Take in the events that came with ``view``."""
        for event in view.decision.events:
            self.tracker.observe(event.kind, event.seat, event.data)

    def decide(self, view: EightsView, start: float | None = None) -> EightsAction:
        start = time.perf_counter() if start is None else start
        self.observe(view)
        legal = view.legal_actions
        if len(legal) == 1:
            self.last = None
            return self._remember(view, legal[0])
        watch = Stopwatch(decision_budget_s(self.settings, view.decision.deadline_ms,
                                            view.decision.time_bank_ms), start)
        template = from_view(self.proto, view, self.tracker, self.turn_cards, self.announced, self.rng)
        pool = unseen_pool(self.decks, [*view.hand, *view.pile])
        sim = EightsSimulation(template, pool, likely_groups(pool, self.tracker.groups_for(view.hand_sizes),
                                                             self.rng))
        root = root_prune(template, [int(a) for a in legal])
        if self.settings.algorithm == "ismcts":
            self.last = search(sim, root, self.rng, watch, self.settings.iterations)
        else:
            sim.epsilon = 0.0
            sim.horizon = HORIZON_ROUNDS * len(view.hand_sizes)
            first = sim.prefer(sim.determinize(self.rng), root, self.rng)
            root = [first] + [a for a in root if a != first]
            self.last = paired_search(sim, root, self.rng, watch, self.settings.iterations, self.seat)
        return self._remember(view, EightsAction(self.last.action))

    def _remember(self, view: EightsView, action: EightsAction) -> EightsAction:
        """Keep what the engine will need from this seat's own turn (multi-card plays)."""
        card = action.card
        if card is not None:
            self.turn_cards = [*self.turn_cards, card] if view.phase == "multi_play" else [card]
            self.announced = action.announce
        return action


def make_agent(rules: RuleSet, seat: int, num_players: int, settings: Settings, rng: random.Random) -> Agent:
    """The agent for ``rules``' game."""
    if isinstance(rules, CrazyEightsRules):
        return EightsAgent(rules, seat, num_players, settings, rng)
    from referee.games.crazy_rummy.rules import CrazyRummyRules

    from .rummy import RummyAgent

    if not isinstance(rules, CrazyRummyRules):
        raise TypeError(f"no agent for the rules of {rules.GAME!r}")
    return RummyAgent(rules, seat, num_players, settings, rng)

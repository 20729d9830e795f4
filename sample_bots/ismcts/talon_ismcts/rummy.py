"""The Crazy Rummy side of the search: policy, simulation and the agent.

What is searched: the draw (stock or the top discard) and the discard, the two choices that
shape a Rummy hand. Table actions follow the policy (lay down every meld as early as possible,
the biggest first, then lay off): keeping melds in hand only risks points, and the table phase
offers too many equivalent actions to search in a few milliseconds.

The policy is the ``greedy`` sample bot's, with one change to the discard: among the cards that
are not wild it throws the one with the fewest partners (cards of the same rank, or of the same
suit within two ranks, that could make a meld with it), the highest first. Greedy throws its
highest card whatever it could have become. Rollouts play the greedy rule for every seat (fast,
and a fair model of a sensible table); the search compares its candidates with paired rollouts
and leaves the policy's choice only on significant evidence (see :func:`.search.paired_search`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from referee.games.crazy_rummy.actions import (
    DISCARD, DRAW_DISCARD, DRAW_STOCK, END_TABLE, LAY_OFF_RUN, LAY_OFF_SET, MELD_RUN, MELD_SET, RummyAction,
)
from referee.games.crazy_rummy.rules import CrazyRummyRules
from referee.games.crazy_rummy.state import DISCARD as P_DISCARD
from referee.games.crazy_rummy.state import DRAW as P_DRAW
from referee.games.crazy_rummy.state import OVER as P_OVER
from referee.games.crazy_rummy.state import TABLE as P_TABLE
from referee.games.crazy_rummy.state import CrazyRummyState
from talon_sdk.melds import find_melds
from talon_sdk.rummy_views import RummyView

from .agent import likely_groups, unseen_pool
from .clock import Settings, Stopwatch, decision_budget_s
from .eights import rewards_from_points
from .rummy_position import RummyTracker, TurnMemory, copy_state, deal_into, from_view, prototype
from .sampler import Group, deal
from .search import SearchResult, paired_search

POINT_SCALE = 20.0
"""Points of deal difference that make a reward of about 0.88."""
CANDIDATES = 4
"""Discards the search compares: the policy's order, best first."""
HORIZON_ROUNDS = 1
"""Rounds of turns a rollout plays before estimating the deal."""
MAX_ROLLOUT_STEPS = 600
CLOCK_EVERY = 2


def _fits(hand: Sequence[int], card: int, wild: int) -> bool:
    """Whether ``card`` could join two cards of ``hand`` in a set or a run (wilds fill gaps)."""
    if card % 13 + 1 == wild:
        return True
    wilds = sum(1 for c in hand if c % 13 + 1 == wild)
    naturals = {c for c in hand if c % 13 + 1 != wild}
    rank, suit = card % 13, card // 13
    if sum(1 for c in naturals if c % 13 == rank and c != card) + wilds >= 2:
        return True
    for low in (rank - 2, rank - 1, rank):
        if low < 0 or low + 2 > 12:
            continue
        missing = sum(1 for r in range(low, low + 3) if r != rank and suit * 13 + r not in naturals)
        if missing <= wilds:
            return True
    return False


def _partners(hand: Sequence[int], card: int, wild: int) -> int:
    rank, suit = card % 13, card // 13
    count = 0
    for c in hand:
        if c == card or c % 13 + 1 == wild:
            continue
        if c % 13 == rank or (c // 13 == suit and abs(c % 13 - rank) <= 2):
            count += 1
    return count


def discard_order(state: CrazyRummyState, legal: Sequence[RummyAction], smart: bool) -> list[RummyAction]:
    """Discards, the one to throw first: never a wild while another card will do; the card with
    the fewest partners (``smart``) and then the highest value first."""
    hand = state._hands[state._cur]
    wild = state._wild
    value = state.rules.card_value

    def key(action: RummyAction) -> tuple[int, int, int, RummyAction]:
        card = action.cards[0]
        partners = _partners(hand, card, wild) if smart else 0
        return (card % 13 + 1 != wild, -partners, value(card, wild), action)

    return sorted(legal, key=key, reverse=True)


def policy(state: CrazyRummyState, legal: Sequence[RummyAction], smart: bool) -> RummyAction:
    """The policy's action (see the module docstring); ``smart`` picks the improved discard."""
    if len(legal) == 1:
        return legal[0]
    phase = state._phase
    if phase == P_DRAW:
        take = [a for a in legal if a.kind == DRAW_DISCARD]
        if take and _fits(state._hands[state._cur], state._discard[-1], state._wild):
            return take[0]
        return next(a for a in legal if a.kind == DRAW_STOCK)
    if phase == P_TABLE:
        melds = [a for a in legal if a.kind in (MELD_SET, MELD_RUN)]
        if melds:
            return max(melds, key=lambda a: (len(a.cards), a))
        lay_offs = [a for a in legal if a.kind in (LAY_OFF_SET, LAY_OFF_RUN)]
        if lay_offs:
            return lay_offs[0]
        return next((a for a in legal if a.kind == END_TABLE), legal[0])
    return discard_order(state, legal, smart)[0]


class RummySimulation:
    """Everything the search needs to simulate one Crazy Rummy decision."""

    def __init__(self, template: CrazyRummyState, pool: Sequence[int], groups: Sequence[Group]) -> None:
        self.template = template
        self.pool = list(pool)
        self.groups = list(groups)
        self.seats = [g.seat for g in self.groups]
        self.start_deals = len(template._deal_scores)
        self.horizon = 0
        """Turns a rollout plays before :meth:`estimate` guesses the outcome (0: to the end)."""

    def determinize(self, rng: random.Random) -> CrazyRummyState:
        hands, stock = deal(self.pool, self.groups, rng)
        return deal_into(self.template, self.seats, hands, stock, rng)

    def fork(self, state: CrazyRummyState, rng: random.Random) -> CrazyRummyState:
        return copy_state(state, rng)

    def actions(self, state: CrazyRummyState) -> list[RummyAction]:
        return state.legal_actions()

    def apply(self, state: CrazyRummyState, action: RummyAction) -> None:
        state.apply(action)

    def done(self, state: CrazyRummyState) -> bool:
        return state._phase == P_OVER or len(state._deal_scores) > self.start_deals

    def player(self, state: CrazyRummyState) -> int:
        return state._cur

    def prefer(self, state: CrazyRummyState, legal: Sequence[RummyAction], rng: random.Random) -> RummyAction:
        return policy(state, legal, smart=True)

    def rollout(self, state: CrazyRummyState, rng: random.Random, watch: Stopwatch) -> list[float]:
        """Play the deal out with the greedy rule for every seat; every seat's reward."""
        steps = 0
        deals0 = self.start_deals
        stop_turn = state._turn + self.horizon if self.horizon else 1 << 30
        while state._phase != P_OVER and len(state._deal_scores) == deals0:
            if state._turn >= stop_turn:
                return self.estimate(state)
            legal = state.legal_actions()
            state.apply(policy(state, legal, smart=False))
            steps += 1
            if steps % CLOCK_EVERY == 0 and (steps >= MAX_ROLLOUT_STEPS or watch.expired()):
                return self._cut(state)
        return self.rewards(state)

    def estimate(self, state: CrazyRummyState) -> list[float]:
        """Rewards of a deal still in play: each hand's points, a card with a partner (that
        could still make a meld with it) counted at half its value."""
        value = state.rules.card_value
        wild = state._wild
        points = []
        for hand in state._hands:
            total = 0.0
            for card in hand:
                if card % 13 + 1 == wild:
                    continue  # a wild is an asset while the deal goes on
                total += value(card, wild) * (0.5 if _partners(hand, card, wild) else 1.0)
            points.append(int(round(total)))
        return rewards_from_points(points, True, POINT_SCALE)

    def rewards(self, state: CrazyRummyState) -> list[float]:
        if len(state._deal_scores) == self.start_deals:
            return self._cut(state)
        return rewards_from_points(state._deal_scores[self.start_deals], True, POINT_SCALE)

    def _cut(self, state: CrazyRummyState) -> list[float]:
        """Rewards of a deal stopped early: every hand counted as it stands."""
        value = state.rules.card_value
        points = [sum(value(c, state._wild) for c in hand) for hand in state._hands]
        return rewards_from_points(points, True, POINT_SCALE)


class RummyAgent:
    """A Crazy Rummy seat: the tracker, the turn memory, the clock and the search."""

    def __init__(self, rules: CrazyRummyRules, seat: int, num_players: int, settings: Settings,
                 rng: random.Random) -> None:
        self.rules = rules
        self.seat = seat
        self.settings = settings
        self.rng = rng
        self.tracker = RummyTracker(seat, num_players)
        self.memory = TurnMemory()
        self.proto = prototype(rules, num_players)
        self.last: SearchResult | None = None

    def decide(self, view: RummyView, start: float | None = None) -> RummyAction:
        start = time.perf_counter() if start is None else start
        for event in view.decision.events:
            self.tracker.observe(event.kind, event.seat, event.data)
        if view.phase == "draw":
            self.memory.start()
        self.last = None
        legal = [RummyAction(*a) for a in view.legal_actions]
        if len(legal) == 1:
            return self._remember(view, legal[0])
        template = from_view(self.proto, view, self.tracker, self.memory, self.rng)
        if view.phase == "table":
            return self._remember(view, policy(template, template.legal_actions(), smart=True))
        root = self._candidates(view, template, legal)
        if len(root) == 1:
            return self._remember(view, root[0])
        watch = Stopwatch(decision_budget_s(self.settings, view.decision.deadline_ms,
                                            view.decision.time_bank_ms), start)
        seen = [*view.hand, *view.discard_pile, *(c for m in view.melds for c in m.cards)]
        pool = unseen_pool(self.rules.decks, seen)
        groups = likely_groups(pool, self.tracker.groups_for(view.hand_sizes), self.rng)
        sim = RummySimulation(template, pool, groups)
        sim.horizon = HORIZON_ROUNDS * view.num_players
        self.last = paired_search(sim, root, self.rng, watch, self.settings.iterations, self.seat)
        return self._remember(view, self.last.action)

    def _candidates(self, view: RummyView, template: CrazyRummyState, legal: list[RummyAction]) -> list[RummyAction]:
        """Root actions, the policy's choice first."""
        if view.phase == "draw":
            first = self._draw_choice(view, legal)
            return [first] + [a for a in legal if a != first]
        return discard_order(template, legal, smart=True)[:CANDIDATES]

    def _draw_choice(self, view: RummyView, legal: list[RummyAction]) -> RummyAction:
        """The greedy bot's draw: the top discard when it completes a meld with the hand."""
        take = [a for a in legal if a.kind == DRAW_DISCARD]
        if take and view.discard_pile:
            card = view.discard_pile[-1]
            if find_melds([*view.hand, card], view_rules(view, self.rules), leave=1, must_include=card):
                return take[0]
        return next(a for a in legal if a.kind == DRAW_STOCK)

    def _remember(self, view: RummyView, action: Any) -> RummyAction:
        chosen = RummyAction(*action)
        if chosen.kind == DRAW_DISCARD:
            self.memory.took_discard = True
        elif chosen.kind == DRAW_STOCK:
            self.memory.drew_stock = True
        elif chosen.kind in (LAY_OFF_SET, LAY_OFF_RUN) and view.one_card_turn:
            self.memory.laid_off = True
        elif chosen.kind == DISCARD:
            self.memory.start()
        return chosen


def view_rules(view: RummyView, rules: CrazyRummyRules) -> Any:
    """The meld rules of the view's deal, from the match's rule set."""
    from talon_sdk.melds import MeldRules

    return MeldRules(view.wild_rank, rules.ace_in_runs == "high_or_low", rules.decks, rules.set_max,
                     rules.allow_all_wild_melds)

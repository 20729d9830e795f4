"""The Crazy Eights side of the search: determinizations, the rollout policy and the rewards.

:class:`EightsSimulation` is what :func:`.search.search` drives: it deals hidden cards with the
sampler (honouring the tracker's evidence), lists the actions worth searching, plays rollouts
with a fast greedy-like policy on the engine itself, and turns the end of the hand into a reward
in [0, 1] for every seat.

Why these choices:

* Rollouts follow a sensible policy, not uniform random play: random players draw when they
  could play and make hands ten times longer and meaningless. The policy is the ``greedy``
  sample bot's rule (keep wilds, shed high cards of the longest suit, name the longest suit),
  with a little noise so rollouts do not all agree. Searching over it is one step of policy
  improvement over the sensible player.
* The reward is the hand's outcome, not the match's: hands are what a decision can influence,
  and the match's points are the hand's points added up. When the hand ends the match, the
  places count instead.
* A "last card" announcement costs nothing, so the search never looks at plays that skip it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from referee.games.crazy_eights.scoring import hand_points
from referee.games.crazy_eights.state import CrazyEightsState
from referee.games.crazy_eights.table import P_MULTI, P_NAME_SUIT, P_OVER
from talon_sdk.cards import RANK_MASKS, SUIT_MASKS

from .clock import Stopwatch
from .eights_position import copy_state, deal_into
from .sampler import Group, deal

PLAY = 64
NAME_SUIT = 4
STOP = 2
EPSILON = 0.1
"""Chance that a rollout step plays a random legal card instead of the greedy one."""
MAX_ROLLOUT_STEPS = 400
"""A rollout longer than this is scored as if the hand were blocked there."""
CLOCK_EVERY = 64
"""Rollout steps between two looks at the stopwatch."""
CARD_WEIGHT = 0.5
"""How much one card less in hand raises the estimated chance of going out first (softmax)."""
POINT_SCALE = 30.0
"""Points of hand difference that make a reward of about 0.88 (tanh(1))."""


def _card_points(card: int, wild_rank: int) -> int:
    rank = card % 13 + 1
    if rank == wild_rank:
        return 50
    return 10 if rank >= 10 else rank


def greedy_action(state: CrazyEightsState, legal: Sequence[int], rng: random.Random, epsilon: float) -> int:
    """The greedy sample bot's choice in ``state`` (with probability ``epsilon``: a random play).

    Mirrors ``sample_bots/greedy``: draw, pass or stop only when nothing plays; keep wilds when
    another card plays; announce a last card; prefer naming the longest suit, then the card
    worth most, then the suit held most.
    """
    if len(legal) == 1:
        return legal[0]
    p = state._cur
    hand = state._hands[p]
    hand = hand | (hand >> 52)
    counts = [(hand & SUIT_MASKS[s]).bit_count() for s in range(4)]
    if state._phase == P_NAME_SUIT:
        best = max(range(4), key=counts.__getitem__)
        return NAME_SUIT + best
    first = 0
    while first < len(legal) and legal[first] < PLAY:
        first += 1
    if first == len(legal):
        return legal[0]
    plays = legal[first:]
    wild = state._wr[p]
    normal = [a for a in plays if ((a - PLAY) >> 4) % 13 + 1 != wild]
    if state._phase == P_MULTI and not normal and first:
        return legal[0]
    choices = normal or plays
    if epsilon and rng.random() < epsilon:
        pick = choices[rng.randrange(len(choices))]
        return pick | 1 if pick + 1 in choices and not pick & 1 else pick
    top = max(counts)
    best_action, best_key = choices[0], (-1, -1, -1, -1)
    for a in choices:
        x = a - PLAY
        card = x >> 4
        named = (x >> 1) & 7
        key = (x & 1, int(named < 4 and counts[named] == top), _card_points(card, wild), counts[card // 13])
        if key > best_key:
            best_action, best_key = a, key
    return best_action


def prune(state: CrazyEightsState, legal: Sequence[int]) -> list[int]:
    """``legal`` less the plays that forgo a free "last card" announcement."""
    if not state.rules.last_card_penalty:
        return list(legal)
    present = set(legal)
    return [a for a in legal if a < PLAY or a & 1 or (a + 1) not in present]


def root_prune(state: CrazyEightsState, legal: Sequence[int]) -> list[int]:
    """The root's actions: :func:`prune`, and one wild card per named suit where the wild's own
    suit cannot matter (it names a suit and need not match), so the search spends its time
    on choices that differ."""
    actions = prune(state, legal)
    rules = state.rules
    if rules.eight_must_match or rules.eight_names_suit not in ("on", "optional"):
        return actions
    wild = state._wr[state._cur]
    seen: set[int] = set()
    out = []
    for a in actions:
        if a >= PLAY and ((a - PLAY) >> 4) % 13 + 1 == wild:
            key = (a - PLAY) & 15  # named suit and announcement
            if key in seen:
                continue
            seen.add(key)
        out.append(a)
    return out


def rewards_from_points(points: Sequence[int], lower_is_better: bool, scale: float) -> list[float]:
    """Each seat's reward in [0, 1] from a hand's points: its edge over the others' mean."""
    n = len(points)
    sign = -1.0 if lower_is_better else 1.0
    total = sum(points)
    out = []
    for p in points:
        edge = sign * (p - (total - p) / (n - 1))
        out.append(0.5 + 0.5 * math.tanh(edge / scale))
    return out


class EightsSimulation:
    """Everything the search needs to simulate one Crazy Eights decision."""

    def __init__(self, template: CrazyEightsState, pool: Sequence[int], groups: Sequence[Group]) -> None:
        self.template = template
        self.pool = list(pool)
        self.groups = list(groups)
        self.seats = [g.seat for g in self.groups]
        self.start_hands = len(template._hand_scores)
        rules = template.rules
        self.countdown = rules.variant == "countdown"
        self.lower_is_better = self.countdown or rules.scoring_mode == "penalty"
        self.scale = 1.0 if self.countdown else POINT_SCALE
        self.mode = rules.scoring_mode
        self.epsilon = EPSILON
        self.horizon = 0
        """Turns a rollout plays before :meth:`estimate` guesses the outcome (0: to the end)."""

    def determinize(self, rng: random.Random) -> CrazyEightsState:
        """A copy of the position with the hidden cards dealt anew (see :mod:`.sampler`)."""
        hands, stock = deal(self.pool, self.groups, rng)
        return deal_into(self.template, self.seats, hands, stock, rng)

    def actions(self, state: CrazyEightsState) -> list[int]:
        return prune(state, state.legal_actions())

    def fork(self, state: CrazyEightsState, rng: random.Random) -> CrazyEightsState:
        return copy_state(state, rng)

    def apply(self, state: CrazyEightsState, action: int) -> None:
        state.apply(action)

    def done(self, state: CrazyEightsState) -> bool:
        return state._phase == P_OVER or len(state._hand_scores) > self.start_hands

    def player(self, state: CrazyEightsState) -> int:
        return state._cur

    def prefer(self, state: CrazyEightsState, legal: Sequence[int], rng: random.Random) -> int:
        """The policy's choice: the first child a node expands."""
        return greedy_action(state, legal, rng, 0.0)

    def rollout(self, state: CrazyEightsState, rng: random.Random, watch: Stopwatch) -> list[float]:
        """Play the hand out with the greedy-like policy; the rewards of every seat."""
        steps = 0
        hands0 = self.start_hands
        stop_turn = state._turns + self.horizon if self.horizon else 1 << 30
        while state._phase != P_OVER and len(state._hand_scores) == hands0:
            if state._turns >= stop_turn:
                return self.estimate(state)
            legal = state.legal_actions()
            action = legal[0] if len(legal) == 1 else greedy_action(state, legal, rng, self.epsilon)
            state.apply(action)
            steps += 1
            if steps % CLOCK_EVERY == 0 and (steps >= MAX_ROLLOUT_STEPS or watch.expired()):
                return self._cut(state)
        return self.rewards(state)

    def estimate(self, state: CrazyEightsState) -> list[float]:
        """Rewards of a hand still in play: each seat's chance to go out first, guessed from the
        cards everyone holds (fewer is better; a wild counts as half a card)."""
        weights = []
        for seat in range(state.num_players):
            hand = state._hands[seat]
            cards = hand.bit_count()
            wilds = ((hand | hand >> 52) & RANK_MASKS[state._wr[seat]]).bit_count()
            weights.append(math.exp(-CARD_WEIGHT * (cards - 0.5 * wilds)))
        total = sum(weights)
        return [w / total for w in weights]

    def rewards(self, state: CrazyEightsState) -> list[float]:
        """Rewards once the hand (or the match) has ended."""
        if state._phase == P_OVER and state._places:
            places = state._places
            firsts = places.count(1)
            return [1.0 / firsts if p == 1 else 0.0 for p in places]
        if len(state._hand_scores) == self.start_hands:
            return self._cut(state)
        return rewards_from_points(state._hand_scores[-1], self.lower_is_better, self.scale)

    def _cut(self, state: CrazyEightsState) -> list[float]:
        """Rewards of a hand stopped early: scored as if it were blocked now."""
        n = state.num_players
        if self.countdown:
            return [0.5] * n
        values = [state._hand_value(s) for s in range(n)]
        return rewards_from_points(hand_points(values, -1, self.mode), self.lower_is_better, self.scale)

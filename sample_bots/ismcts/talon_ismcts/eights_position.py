"""Engine positions built from a Crazy Eights view plus a guess at the hidden cards.

The search simulates with the rules engine itself, so every rule of every preset is exact in
the bot's head. The engine has no constructor from a view (a view is not a whole state: the
stock's order and the other hands are missing), so this module fills a state's fields from the
view, the tracker's counters and the bot's memory of its own turn, and the sampler's deal fills
the rest. It reaches into the engine's private fields, deliberately and only here: the engine
offers ``arrange`` for hand-built positions, but a search needs every phase (after a draw, in a
multi-card play, naming a suit) and all the match counters. Copies for simulation use the
engine's public ``fork()`` (far cheaper than ``clone()``: no history, the search's generator).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.games.crazy_eights.rules import CrazyEightsRules
from referee.games.crazy_eights.state import PHASE_NAMES, CrazyEightsState
from talon_sdk.cards import mask_add, mask_from_cards
from talon_sdk.views import EightsView

from .eights_tracker import EightsTracker

def prototype(rules: CrazyEightsRules, num_players: int) -> CrazyEightsState:
    """A state whose rule-derived fields (special ranks, guards, targets) are set, once per match."""
    return CrazyEightsState(rules, num_players, 0)


def copy_state(src: CrazyEightsState, rng: random.Random) -> CrazyEightsState:
    """A fresh copy for one simulation (the engine's :meth:`fork`: no history, ``rng`` shared).

    Sharing the search's generator is sound: the engine uses its own only for reshuffles and
    new deals, and all of the bot's randomness comes from that one seeded generator anyway.
    """
    return src.fork(rng)


def from_view(proto: CrazyEightsState, view: EightsView, tracker: EightsTracker,
              turn_cards: Sequence[int], announced: bool, rng: random.Random) -> CrazyEightsState:
    """The public part of the position in ``view``: the seat's own hand, an empty stock and
    empty other hands (a determinization deals those).

    ``turn_cards`` are the cards the seat already played in this turn (a multi-card play) and
    ``announced`` whether its last play announced a last card: the bot's own memory.
    """
    n = view.num_players
    state = copy_state(proto, rng)
    state._hands = [0] * n
    state._hands[view.seat] = mask_from_cards(view.hand)
    state._stock = []
    state._pile = list(view.pile)
    state._top = view.top_card if view.top_card is not None else view.pile[-1]
    state._follow = view.suit_to_follow
    state._top_wild = view.named_suit is not None
    state._dir = view.direction
    state._cur = view.seat
    state._dealer = view.dealer
    state._phase = PHASE_NAMES.index(view.phase)
    state._pending = view.pending_draw
    state._drawn = view.drawn_this_turn
    state._drawn_card = view.drawn_card if view.drawn_card is not None else -1
    state._passes = tracker.passes
    state._turns = view.turn
    state._hand_no = view.hand_number
    state._hand_scores = [list(h) for h in view.hand_scores]
    if view.personal_scores:
        state._personal = list(view.personal_scores)
        state._base = list(tracker.deal_sizes) if tracker.deal_sizes else list(view.personal_scores)
    else:
        state._scores = list(view.scores)
    state._wr = list(view.wild_ranks)
    state._announced = int(announced)
    state._fx = [0, 0, 0, 0]
    if view.phase == "multi_play":
        for card in turn_cards:
            state._add_effects(card)
    rules = state.rules
    state._end_pending = rules.stock_empty == "end_hand" and view.stock_size == 0
    if rules.match_end == "hands":
        state._extra = max(0, view.hand_number - rules.match_hands)
    state._legal = None
    return state


def deal_into(template: CrazyEightsState, seats: Sequence[int], hands: Sequence[Sequence[int]],
              stock: list[int], rng: random.Random) -> CrazyEightsState:
    """A copy of ``template`` with ``hands[i]`` given to ``seats[i]`` and ``stock`` as the stock."""
    state = copy_state(template, rng)
    for seat, cards in zip(seats, hands):
        mask = state._hands[seat]
        for card in cards:
            mask = mask_add(mask, card)
        state._hands[seat] = mask
    state._stock = stock
    state._legal = None  # the template's stock is empty: drawing was not legal there
    return state

"""Crazy Rummy: what a seat knows of the other hands, and engine positions built from a view.

Knowledge. Every card on the table and in the discard pile is in the view; what the events add
is which hidden cards sit in which hand: a card taken from the discard pile, or a wild freed by
an exchange, is known to be in the taker's hand until it is melded, laid off or discarded (the
engine keeps the same list, ``_public``, for its own redeal). Those become one-card groups for
the sampler; the rest of each hand is one unconstrained group.

Positions. As for Crazy Eights (:mod:`.eights_position`), the engine has no constructor from a
view, so this module fills a fresh state's fields from the view, the knowledge above and the
bot's memory of its own turn (whether it took the discard, laid off on a one-card turn). It is
the one place that touches the Rummy engine's private fields.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any

from referee.games.crazy_rummy.rules import CrazyRummyRules
from referee.games.crazy_rummy.state import PHASE_NAMES, CrazyRummyState
from referee.games.crazy_rummy.table import MUST_RECLAIMED, MUST_TAKEN
from talon_sdk.melds import MeldRules
from talon_sdk.rummy_views import RummyView

from .sampler import Group


class RummyTracker:
    """Cards known to be in each hand, from the public events (see the module docstring)."""

    def __init__(self, seat: int, num_players: int) -> None:
        self.seat = seat
        self.n = num_players
        self.known: list[list[int]] = [[] for _ in range(num_players)]
        self.resets = 0

    def observe(self, kind: str, seat: int, data: Mapping[str, Any]) -> None:
        """Take in one public event."""
        if kind == "deal":
            self.known = [[] for _ in range(self.n)]
        elif seat < 0 or seat == self.seat:
            return
        elif kind == "draw" and data.get("source") == "discard":
            self.known[seat].append(int(data["card"]))
        elif kind == "meld":
            for card in data.get("cards", ()):
                self._drop(seat, int(card))
        elif kind in ("lay_off", "discard"):
            self._drop(seat, int(data["card"]))
        elif kind == "exchange":
            self._drop(seat, int(data["card"]))
            self.known[seat].append(int(data["wild"]))

    def _drop(self, seat: int, card: int) -> None:
        if card in self.known[seat]:
            self.known[seat].remove(card)

    def groups_for(self, hand_sizes: Sequence[int]) -> list[Group]:
        """One-card groups for the known cards and one free group per hand, checked against
        the view's hand sizes (a disagreement drops the seat's knowledge)."""
        out: list[Group] = []
        for seat in range(self.n):
            if seat == self.seat:
                continue
            known = self.known[seat]
            if len(known) > hand_sizes[seat]:
                self.resets += 1
                known = self.known[seat] = []
            out.extend(Group(seat, 1, 1 << card) for card in known)
            if hand_sizes[seat] > len(known):
                out.append(Group(seat, hand_sizes[seat] - len(known)))
        return out


@dataclasses.dataclass
class TurnMemory:
    """What the seat did earlier in its current turn (the view does not say)."""

    took_discard: bool = False
    drew_stock: bool = False
    laid_off: bool = False

    def start(self) -> None:
        self.took_discard = self.drew_stock = self.laid_off = False


def prototype(rules: CrazyRummyRules, num_players: int) -> CrazyRummyState:
    """A state whose rule-derived fields are set, once per match."""
    return CrazyRummyState(rules, num_players, 0)


def copy_state(src: CrazyRummyState, rng: random.Random) -> CrazyRummyState:
    """A fresh copy for one simulation (the engine's :meth:`fork`: no history, ``rng`` shared)."""
    return src.fork(rng)


def from_view(proto: CrazyRummyState, view: RummyView, tracker: RummyTracker, memory: TurnMemory,
              rng: random.Random) -> CrazyRummyState:
    """The public part of the position in ``view`` (other hands and the stock left empty)."""
    rules = proto.rules
    n = view.num_players
    state = copy_state(proto, rng)
    state._scores = list(view.scores)
    state._deal_scores = [list(d) for d in view.deal_scores]
    state._deals_won = list(view.deals_won)
    state._deal_no = view.deal_number
    state._dealer = view.dealer
    state._first_player = view.first_player
    state._wild = view.wild_rank
    state._meld_rules = MeldRules(view.wild_rank, rules.ace_in_runs == "high_or_low", rules.decks,
                                  rules.set_max, rules.allow_all_wild_melds)
    state._hands = [[] for _ in range(n)]
    state._hands[view.seat] = sorted(view.hand)
    state._public = [list(k) for k in tracker.known]
    state._stock = []
    state._discard = list(view.discard_pile)
    state._melds = list(view.melds)
    state._opened = list(view.opened)
    state._out = [s for s in range(n) if view.hand_sizes[s] == 0]
    state._turn = view.turn
    state._cur = view.seat
    state._phase = PHASE_NAMES.index(view.phase)
    drawn = view.drawn_card if view.drawn_card is not None else -1
    state._drawn = drawn
    state._taken_in_hand = memory.took_discard and drawn in view.hand
    must = view.must_place if view.must_place is not None else -1
    state._must_place = must
    state._must_why = MUST_TAKEN if must >= 0 and memory.took_discard and must == drawn else (
        MUST_RECLAIMED if must >= 0 else "")
    state._drew_last = memory.drew_stock and view.stock_size == 0
    state._one_card = view.one_card_turn
    held = -1
    if view.one_card_turn:
        rest = list(view.hand)
        if drawn >= 0 and drawn in rest and len(rest) > 1:
            rest.remove(drawn)
        held = rest[0] if rest else -1
    state._held = held
    state._laid_one = memory.laid_off and view.one_card_turn
    state._legal = None
    return state


def deal_into(template: CrazyRummyState, seats: Sequence[int], hands: Sequence[Sequence[int]],
              stock: list[int], rng: random.Random) -> CrazyRummyState:
    """A copy of ``template`` with ``hands[i]`` given to ``seats[i]`` and ``stock`` as the stock."""
    state = copy_state(template, rng)
    for seat, cards in zip(seats, hands):
        state._hands[seat].extend(cards)
    for seat in set(seats):
        state._hands[seat].sort()
    state._stock = stock
    return state

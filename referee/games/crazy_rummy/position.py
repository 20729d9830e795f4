"""Rearrange the cards of a Crazy Rummy state: set up positions, and redeal hidden cards.

Why: the rules worth testing (a one-card turn, a wild exchange, the last stock card) are rare
in a shuffled deal. :func:`arrange` replaces the current deal of a fresh state with the given
hands, melds and piles, keeping every card of the pack somewhere so card conservation holds.
An arranged state no longer follows from its seed, so its history does not replay; everything
after the arrangement is ordinary play. :func:`redeal_hidden` deals anew what one seat cannot
see, for the no-leak contract test and as the simplest determinization for search bots.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.games.base import RulesError
from talon_sdk.cards import new_pack
from talon_sdk.melds import Meld, MeldError, MeldRules, make_meld

if TYPE_CHECKING:
    from referee.games.crazy_rummy.state import CrazyRummyState


def arrange(state: CrazyRummyState, hands: Sequence[Sequence[int]], *,
            melds: Sequence[Meld] = (), discard: Sequence[int] = (),
            stock_top: Sequence[int] = (), stock_size: int | None = None,
            opened: Sequence[bool] | None = None, current: int = 0, turn: int = 2,
            deal_number: int = 1, dealer: int | None = None,
            scores: Sequence[int] | None = None) -> None:
    """Make ``state`` a deal in progress, at the start of ``current``'s turn ``turn``.

    * ``hands``: every seat's cards; ``melds``: the table (each checked, with its ``owner``);
      ``discard``: the discard pile, bottom to top.
    * The stock holds every other card of the pack, sorted, with ``stock_top`` on top (its
      first card is drawn first). With ``stock_size`` the stock is cut to that many cards and
      the rest goes under the discard pile.
    * ``opened`` defaults to "owns a meld on the table". ``turn == 1`` starts the deal's first
      turn (no draw); otherwise the turn starts with the draw. ``deal_number`` sets the wild
      rank; ``dealer`` defaults to the seat before ``current``; ``scores`` sets the match
      totals so far.
    """
    from referee.games.crazy_rummy.state import CrazyRummyState

    if not isinstance(state, CrazyRummyState) or state._phase == 3:
        raise RulesError("arrange needs a Crazy Rummy match in progress")
    n = state.num_players
    if len(hands) != n:
        raise RulesError(f"arrange needs {n} hands, not {len(hands)}")
    rules = state.rules
    state._deal_no = deal_number
    state._wild = rules.wild_ranks[deal_number - 1]
    state._meld_rules = MeldRules(state._wild, state._meld_rules.ace_high, rules.decks,
                                  rules.set_max, rules.allow_all_wild_melds)
    table = [_checked(state, m) for m in melds]
    pool = new_pack(rules.decks)
    used = [c for h in hands for c in h] + [c for m in table for c in m.cards]
    used += list(discard) + list(stock_top)
    for card in used:
        try:
            pool.remove(card)
        except ValueError:
            raise RulesError(f"arrange: card {card} is used more often than the pack holds") from None
    stock = sorted(pool, reverse=True) + list(reversed(stock_top))
    under: list[int] = []
    if stock_size is not None:
        cut = len(stock) - stock_size
        if cut < 0:
            raise RulesError(f"arrange: only {len(stock)} cards are left for the stock")
        under, stock = stock[:cut], stock[cut:]
    state._hands = [sorted(h) for h in hands]
    state._melds = table
    state._discard = under + list(discard)
    state._stock = stock
    state._opened = list(opened) if opened is not None else [
        any(m.owner == s for m in table) for s in range(n)]
    state._dealer = (current - 1) % n if dealer is None else dealer
    state._first_player = (state._dealer + 1) % n
    state._turn = turn
    state._events = [("deal", state._dealer, {"deal_number": deal_number, "arranged": True,
                                              "wild_rank": state._wild})]
    state._history = []
    state._public = [[] for _ in range(n)]
    state._out = []
    if scores is not None:
        state._scores = list(scores)
    state._legal = None
    state._begin_turn(current)


def _checked(state: CrazyRummyState, meld: Meld) -> Meld:
    try:
        checked = make_meld(meld.kind, meld.cards, meld.meanings, state._meld_rules, meld.owner)
    except MeldError as err:
        raise RulesError(f"arrange: {err}") from None
    if checked.owner < 0 or checked.owner >= state.num_players:
        raise RulesError(f"arrange: meld {meld} needs an owner seat")
    return checked


def redeal_hidden(state: CrazyRummyState, seat: int, rng: random.Random) -> None:
    """Deal anew, from ``rng``, every card ``seat`` cannot see: the stock and the other hands,
    except the cards known to be there (taken from the discard pile or by an exchange).

    The current player's one-card-turn card and drawn card follow their places in the hand, so
    the turn's rules still hold; the match generator is reseeded from ``rng``.
    """
    others = [s for s in range(state.num_players) if s != seat]
    pool = list(state._stock)
    slots: list[tuple[int, int]] = []
    for s in others:
        known = list(state._public[s])
        for i, card in enumerate(state._hands[s]):
            if card in known:
                known.remove(card)
            else:
                slots.append((s, i))
                pool.append(card)
    marks = _turn_marks(state, seat)
    rng.shuffle(pool)
    state._stock = pool[:len(state._stock)]
    for (s, i), card in zip(slots, pool[len(state._stock):]):
        state._hands[s][i] = card
    if marks is not None:
        hand = state._hands[state._cur]
        state._held = hand[marks[0]] if marks[0] >= 0 else state._held
        state._drawn = hand[marks[1]] if marks[1] >= 0 else state._drawn
    for s in others:
        state._hands[s].sort()
    state._rng = random.Random(rng.getrandbits(64))
    state._legal = None


def _turn_marks(state: CrazyRummyState, seat: int) -> tuple[int, int] | None:
    """Places in the current hand of the held and the drawn card, when hidden from ``seat``."""
    if state._cur == seat or state.current_player < 0:
        return None
    hand = state._hands[state._cur]
    taken: list[int] = []
    for card in (state._held, -1 if state._taken_in_hand else state._drawn):
        place = next((i for i, c in enumerate(hand) if c == card and i not in taken), -1)
        taken.append(place)
    return taken[0], taken[1]


def fork(state: CrazyRummyState, rng: random.Random) -> CrazyRummyState:
    """A copy to simulate with (see :meth:`CrazyRummyState.fork`): the position and every
    counter, no history or events, drawing from ``rng``."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new._rng = rng
    new._hands = [list(h) for h in state._hands]
    new._stock = list(state._stock)
    new._discard = list(state._discard)
    new._melds = list(state._melds)
    new._opened = list(state._opened)
    new._public = [list(p) for p in state._public]
    new._out = list(state._out)
    new._scores = list(state._scores)
    new._deal_scores = list(state._deal_scores)
    new._deals_won = list(state._deals_won)
    new._events = []
    new._history = []
    new._legal = None
    return new


def clone(state: CrazyRummyState) -> CrazyRummyState:
    """An independent copy of ``state``: every mutable field copied, the generator's state too,
    so the copy plays on exactly as the original would."""
    rng = random.Random()
    rng.setstate(state._rng.getstate())
    new = fork(state, rng)
    new._deal_scores = [list(d) for d in state._deal_scores]
    new._events = list(state._events)
    new._history = list(state._history)
    new._legal = state._legal
    return new

"""Crazy Rummy melds: what makes a set or a run, a lay-off and a wild exchange (rules spec Part A,
rules 8-14). :mod:`talon_sdk.melds` re-exports all of it beside the finder (why both live in the
SDK: see there); import from there. Its own module only so that each stays a readable size.

Declared meanings (the spec's [ENGINE DECISION]: every card in a meld carries what it stands for)

* **run** (``kind == RUN``): ``cards`` and ``meanings`` are in position order, low to high.
  ``meanings[i]`` is the card id that position stands for. A natural card stands for itself; a
  wild for the card declared, which its position fixes for the rest of the deal. With
  ``ace_high`` an Ace may follow a King (Q K A); it keeps the Ace's card id and its place at the
  top of the order says it is high. A run is never longer than 13 cards and never wraps (K A 2).
* **set** (``kind == SET``): every meaning is the set's rank (1..13). A wild in a set stands for
  "a card of that rank in a suit that is missing", so it names no suit.

A **wild** is any card of the deal's wild rank. A **natural** is any other card; it can only
stand for itself. A card "stands for itself" when it is a natural, or a wild declared as its own
identity (``7H`` as ``7H`` in a run, or as a 7 in a set when 7s are wild). With
``allow_all_wild`` off a meld needs at least one card that stands for itself [ENGINE DECISION],
so in the Aces-wild deal ``AC AD AH`` is still a set (spec A.3 rule 10).

With two packs (``decks == 2``) a set may hold two naturals of one suit and up to ``set_max``
cards; a run still holds each position once.

Every ``make_*`` function raises :class:`MeldError` whose message says why, in words for a bot's
author; the finders of :mod:`talon_sdk.melds` only return options those functions accept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from talon_sdk.cards import (
    NUM_CARDS,
    NUM_RANKS,
    RANK_NAMES,
    SUIT_WORDS,
    Card,
    card_name,
    card_rank,
    card_suit,
    cards_name,
    make_card,
)

SET, RUN = 0, 1
KIND_NAMES = ("set", "run")
MAX_RUN = 13
"""The longest run: every rank once (A..K, or 2..A with the Ace high)."""


class MeldError(ValueError):
    """A meld, lay-off or exchange the rules forbid; ``str(err)`` says why."""


@dataclasses.dataclass(frozen=True)
class MeldRules:
    """The switches that shape melds in one deal.

    ``set_max`` is the largest set (4 with one pack, 8 or 4 with two); ``ace_high`` lets an Ace
    follow a King in a run (``ace_in_runs = high_or_low``).
    """

    wild_rank: int
    ace_high: bool = False
    decks: int = 1
    set_max: int = 4
    allow_all_wild: bool = True


class Meld(NamedTuple):
    """A meld on the table (or proposed): see the module docstring for ``meanings``."""

    kind: int
    cards: tuple[int, ...]
    meanings: tuple[int, ...]
    owner: int = -1


class LayOff(NamedTuple):
    """Put ``card`` from the hand on meld number ``meld``, standing for ``meaning``."""

    card: int
    meaning: int
    meld: int


class Exchange(NamedTuple):
    """Put ``natural`` from the hand in place of the wild ``wild`` in meld number ``meld``."""

    natural: int
    wild: int
    meld: int


# --- small facts ---------------------------------------------------------------------------------


def is_wild(card: Card, wild_rank: int) -> bool:
    """Whether ``card`` is wild in a deal where ``wild_rank`` is wild."""
    return card % NUM_RANKS + 1 == wild_rank


def run_span(meld: Meld) -> tuple[int, int, int]:
    """``(suit, low, high)`` of a run; ``high`` is 14 when an Ace follows the King."""
    first = meld.meanings[0]
    low = card_rank(first)
    return card_suit(first), low, low + len(meld.cards) - 1


def position_card(suit: int, value: int) -> Card:
    """The card at rank value ``value`` (1..14, 14 = high Ace) of ``suit``."""
    return make_card(1 if value == 14 else value, suit)


def room(meld: Meld, rules: MeldRules) -> int:
    """How many more cards ``meld`` can take by lay-offs."""
    if meld.kind == SET:
        return rules.set_max - len(meld.cards)
    return MAX_RUN - len(meld.cards)


def natural_suit_count(meld: Meld, suit: int, wild_rank: int) -> int:
    """How many naturals of ``suit`` a set holds (wilds in a set name no suit)."""
    return sum(1 for c in meld.cards if c // NUM_RANKS == suit and not is_wild(c, wild_rank))


def _rank_word(rank: int) -> str:
    return RANK_NAMES[rank] if 1 <= rank <= NUM_RANKS else str(rank)


def _check_ids(cards: Sequence[int], what: str) -> None:
    for card in cards:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_CARDS:
            raise MeldError(f"{what} {card!r} is not a card id (0 to 51)")


def _missing_text(suit: int, values: Iterable[int]) -> str:
    names = [card_name(position_card(suit, v)) for v in values]
    if len(names) > 4:
        return f"{names[0]} to {names[-1]} ({len(names)} cards) are missing"
    return f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} missing"


# --- validation ----------------------------------------------------------------------------------


def make_meld(kind: int, cards: Sequence[int], meanings: Sequence[int], rules: MeldRules,
              owner: int = -1) -> Meld:
    """The meld ``cards`` declared as ``meanings``, in canonical order, or :class:`MeldError`."""
    if kind == SET:
        return make_set(cards, meanings, rules, owner)
    if kind == RUN:
        return make_run(cards, meanings, rules, owner)
    raise MeldError(f"unknown meld kind {kind!r}: 0 is a set, 1 is a run")


def _check_shape(cards: Sequence[int], meanings: Sequence[int], what: str) -> None:
    if len(cards) != len(meanings):
        raise MeldError(
            f"a {what} needs one meaning per card: {len(cards)} cards, {len(meanings)} meanings"
        )
    _check_ids(cards, "card")


def make_set(cards: Sequence[int], meanings: Sequence[int], rules: MeldRules,
             owner: int = -1) -> Meld:
    """A set (spec A.3 rule 8): 3 to ``set_max`` cards standing for one rank."""
    _check_shape(cards, meanings, "set")
    shown = cards_name(cards)
    if not 3 <= len(cards) <= rules.set_max:
        raise MeldError(f"{shown} is not a set: a set holds 3 to {rules.set_max} cards")
    rank = max(sorted(set(meanings)), key=list(meanings).count)
    if not isinstance(rank, int) or not 1 <= rank <= NUM_RANKS:
        raise MeldError(f"{shown} is not a set: its meanings are its rank, 1 (Ace) to 13 (King)")
    word = _rank_word(rank)
    per_suit = [0, 0, 0, 0]
    for card, meaning in zip(cards, meanings):
        if is_wild(card, rules.wild_rank):
            if meaning != rank:
                raise MeldError(f"{shown} is not a set of {word}s: the wild {card_name(card)} is "
                                f"declared as {meaning!r}, but every card stands for the set's rank")
            continue
        if card_rank(card) != rank:
            raise MeldError(f"{shown} is not a set of {word}s: {card_name(card)} is not a {word} "
                            f"and is not wild")
        if meaning != rank:
            raise MeldError(f"{shown} is not a set of {word}s: {card_name(card)} is not wild, so it "
                            f"stands for itself: declare it as {rank}, the set's rank")
        per_suit[card_suit(card)] += 1
        if per_suit[card_suit(card)] > rules.decks:
            raise MeldError(f"{shown} is not a set: it holds {card_name(card)} "
                            f"{'twice' if rules.decks == 1 else 'more than twice'}; the naturals "
                            f"of a set must be of different suits")
    if not rules.allow_all_wild and not any(card_rank(c) == rank for c in cards):
        raise MeldError(
            f"{shown} is all wild cards, and all-wild melds are off (allow_all_wild_melds): "
            f"at least one card must stand for itself"
        )
    return Meld(SET, set_order(cards, rules.wild_rank), (rank,) * len(cards), owner)


def set_order(cards: Iterable[Card], wild_rank: int) -> tuple[int, ...]:
    """The canonical order of a set's cards: naturals, then wilds, each sorted."""
    return tuple(sorted(cards, key=lambda c: (is_wild(c, wild_rank), c)))


def make_run(cards: Sequence[int], meanings: Sequence[int], rules: MeldRules,
             owner: int = -1) -> Meld:
    """A run (spec A.3 rule 9): 3 to 13 consecutive cards of one suit, no wrap-around."""
    _check_shape(cards, meanings, "run")
    _check_ids(meanings, "meaning")
    shown = cards_name(cards)
    if not 3 <= len(cards) <= MAX_RUN:
        raise MeldError(f"{shown} is not a run: a run holds 3 to {MAX_RUN} cards")
    for card, meaning in zip(cards, meanings):
        if meaning != card and not is_wild(card, rules.wild_rank):
            raise MeldError(
                f"{card_name(card)} is not wild ({_rank_word(rules.wild_rank)}s are wild this "
                f"deal), so it can only stand for itself, not for {card_name(meaning)}"
            )
    suits = sorted({card_suit(m) for m in meanings})
    if len(suits) > 1:
        words = " and ".join(SUIT_WORDS[s] for s in suits)
        raise MeldError(f"{shown} is not a run: a run is all one suit, this one mixes {words}")
    suit = suits[0]
    ranks = [card_rank(m) for m in meanings]
    for meaning in meanings:
        if ranks.count(card_rank(meaning)) > 1:
            raise MeldError(f"{shown} is not a run: two cards stand for {card_name(meaning)}")
    rank_set = set(ranks)
    ace_top = 1 in rank_set and NUM_RANKS in rank_set and 2 not in rank_set
    values = [14 if (r == 1 and ace_top and rules.ace_high) else r for r in ranks]
    low, high = min(values), max(values)
    if high - low + 1 != len(values):
        high_ace = [14 if r == 1 else r for r in ranks]
        if ace_top and not rules.ace_high and max(high_ace) - min(high_ace) + 1 == len(ranks):
            raise MeldError(
                f"{shown} is not a run: the Ace is low only (ace_in_runs = low), so it cannot "
                f"follow the King"
            )
        missing = [v for v in range(low, high + 1) if v not in set(values)]
        raise MeldError(
            f"{shown} is not a run: {_missing_text(suit, missing)} and no wild stands for "
            f"{'it' if len(missing) == 1 else 'them'}"
        )
    if not rules.allow_all_wild and not any(c == m for c, m in zip(cards, meanings)):
        raise MeldError(
            f"{shown} is all wild cards, and all-wild melds are off (allow_all_wild_melds): "
            f"at least one card must stand for itself"
        )
    order = sorted(range(len(cards)), key=lambda i: values[i])
    return Meld(RUN, tuple(cards[i] for i in order), tuple(meanings[i] for i in order), owner)


def lay_off(meld: Meld, card: Card, meaning: int, rules: MeldRules) -> Meld:
    """``meld`` with ``card`` added, standing for ``meaning`` (spec A.3 rule 12.2).

    A run grows at either end; a set takes one more card of its rank while it has room.
    """
    _check_ids((card,), "card")
    if meld.kind == SET:
        return _lay_off_set(meld, card, meaning, rules)
    _check_ids((meaning,), "meaning")
    if meaning != card and not is_wild(card, rules.wild_rank):
        raise MeldError(f"{card_name(card)} is not wild, so it can only stand for itself, not for "
                        f"{card_name(meaning)}")
    suit, low, high = run_span(meld)
    shown = cards_name(meld.meanings)
    if len(meld.cards) >= MAX_RUN:
        raise MeldError(f"the run {shown} is complete (13 cards): nothing can extend it")
    value = card_rank(meaning)
    if card_suit(meaning) == suit and value == low - 1:
        return meld._replace(cards=(card,) + meld.cards, meanings=(meaning,) + meld.meanings)
    top_ok = high < NUM_RANKS or (rules.ace_high and high == NUM_RANKS)
    if card_suit(meaning) == suit and top_ok and (value == high + 1 or (value == 1 and high == 13)):
        return meld._replace(cards=meld.cards + (card,), meanings=meld.meanings + (meaning,))
    ends = [card_name(position_card(suit, v)) for v, ok in ((low - 1, low > 1), (high + 1, top_ok))
            if ok]
    raise MeldError(f"{card_name(meaning)} does not extend the run {shown}: it can only take "
                    f"{' or '.join(ends) or 'nothing'}")


def _lay_off_set(meld: Meld, card: Card, meaning: int, rules: MeldRules) -> Meld:
    rank = meld.meanings[0]
    word = _rank_word(rank)
    wild = is_wild(card, rules.wild_rank)
    if not wild and card_rank(card) != rank:
        raise MeldError(f"{card_name(card)} is not a {word} and is not wild, so it cannot "
                        f"join the set of {word}s")
    if meaning != rank:
        raise MeldError(f"this is a set of {word}s: a card laid off on it stands for a {word}, so "
                        f"its meaning must be {rank}")
    if len(meld.cards) >= rules.set_max:
        raise MeldError(f"the set of {word}s is full ({rules.set_max} cards)")
    if not wild:
        if natural_suit_count(meld, card_suit(card), rules.wild_rank) >= rules.decks:
            raise MeldError(f"the set of {word}s already holds {card_name(card)}")
    return meld._replace(cards=set_order(meld.cards + (card,), rules.wild_rank),
                         meanings=meld.meanings + (rank,))


def exchange(meld: Meld, natural: Card, wild: Card, rules: MeldRules) -> Meld:
    """``meld`` with the wild ``wild`` replaced by ``natural`` (spec A.3 rule 14)."""
    _check_ids((natural, wild), "card")
    if is_wild(natural, rules.wild_rank):
        raise MeldError(f"{card_name(natural)} is itself wild: an exchange puts the natural card a "
                        f"wild stands for in its place")
    if not is_wild(wild, rules.wild_rank):
        raise MeldError(f"{card_name(wild)} is not a wild card, so it cannot be exchanged")
    if meld.kind == RUN:
        for pos, (card, meaning) in enumerate(zip(meld.cards, meld.meanings)):
            if meaning == natural and is_wild(card, rules.wild_rank):
                if card != wild:
                    raise MeldError(f"the wild standing for {card_name(natural)} is "
                                    f"{card_name(card)}, not {card_name(wild)}")
                return meld._replace(cards=meld.cards[:pos] + (natural,) + meld.cards[pos + 1:])
        raise MeldError(f"no wild in the run {cards_name(meld.meanings)} stands for "
                        f"{card_name(natural)}: in a run a wild can only be taken by the exact "
                        f"card it stands for")
    word = _rank_word(meld.meanings[0])
    if card_rank(natural) != meld.meanings[0]:
        raise MeldError(f"{card_name(natural)} is not a {word}: only a {word} can take a wild "
                        f"from the set of {word}s")
    if wild not in meld.cards:
        raise MeldError(f"the set of {word}s holds no {card_name(wild)}")
    if natural_suit_count(meld, card_suit(natural), rules.wild_rank) >= rules.decks:
        raise MeldError(f"the set of {word}s already holds {card_name(natural)}: a wild stands "
                        f"for a missing suit")
    pos = meld.cards.index(wild)
    cards = meld.cards[:pos] + (natural,) + meld.cards[pos + 1:]
    return meld._replace(cards=set_order(cards, rules.wild_rank))

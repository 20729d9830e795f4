"""Cards as small ints, packs, and hands as bitmasks.

Why small ints: every rules engine, view and search bot handles cards millions of times a
second, so a card is an ``int`` and a hand is an ``int`` bitmask, as python-chess does with
squares. Names are only for people and wire formats, through the paired helpers
:func:`parse_card` / :func:`card_name`.

Layout (stable, documented to bot authors)::

    card = suit * 13 + (rank - 1)      # 0..51
    suit: 0 = clubs (C, ♣), 1 = diamonds (D, ♦), 2 = hearts (H, ♥), 3 = spades (S, ♠)
    rank: 1 = Ace, 2..10, 11 = Jack, 12 = Queen, 13 = King

so the cards of one suit are 13 consecutive ids in rank order (runs are contiguous bits).

With two packs the two copies of a card share one id. A hand is a 104-bit mask: bit ``c`` is
the first copy of card ``c`` and bit ``c + 52`` the second copy (see :func:`mask_add`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

Card = int
Suit = int
Rank = int

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = 52
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

FULL_PACK_MASK = (1 << NUM_CARDS) - 1

_RANK_ALIASES = {name: r for r, name in enumerate(RANK_NAMES) if name}
_RANK_ALIASES.update({"T": 10})
_SUIT_ALIASES = {letter: s for s, letter in enumerate(SUIT_LETTERS)}
_SUIT_ALIASES.update({symbol: s for s, symbol in enumerate(SUIT_SYMBOLS)})
_SUIT_ALIASES.update({"♧": 0, "♢": 1, "♡": 2, "♤": 3})


class CardError(ValueError):
    """A card, rank or suit written in a form Talon does not read."""


def make_card(rank: Rank, suit: Suit) -> Card:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    if not 1 <= rank <= NUM_RANKS:
        raise CardError(f"rank {rank!r} is out of range: ranks are 1 (Ace) to 13 (King)")
    if not 0 <= suit < NUM_SUITS:
        raise CardError(f"suit {suit!r} is out of range: suits are 0 (C) to 3 (S)")
    return suit * NUM_RANKS + rank - 1


def card_rank(card: Card) -> Rank:
    """The rank of ``card``: 1 (Ace) to 13 (King)."""
    return card % NUM_RANKS + 1


def card_suit(card: Card) -> Suit:
    """The suit of ``card``: 0 (clubs) to 3 (spades)."""
    return card // NUM_RANKS


def rank_name(rank: Rank) -> str:
    """``"A"``, ``"2"`` … ``"10"``, ``"J"``, ``"Q"``, ``"K"``."""
    if not 1 <= rank <= NUM_RANKS:
        raise CardError(f"rank {rank!r} is out of range: ranks are 1 (Ace) to 13 (King)")
    return RANK_NAMES[rank]


def parse_rank(text: str) -> Rank:
    """Read a rank written as ``A``, ``2``…``10`` (or ``T``), ``J``, ``Q`` or ``K``."""
    rank = _RANK_ALIASES.get(text.strip().upper())
    if rank is None:
        raise CardError(f"unknown rank {text!r}: ranks are A, 2-10 (or T), J, Q, K")
    return rank


def suit_name(suit: Suit) -> str:
    """The letter of ``suit``: ``C``, ``D``, ``H`` or ``S``."""
    if not 0 <= suit < NUM_SUITS:
        raise CardError(f"suit {suit!r} is out of range: suits are 0 (C) to 3 (S)")
    return SUIT_LETTERS[suit]


def parse_suit(text: str) -> Suit:
    """Read a suit written as a letter (``C D H S``), a symbol (``♣♦♥♠``) or a word."""
    key = text.strip()
    suit = _SUIT_ALIASES.get(key.upper()) if len(key) == 1 else None
    if suit is None and key.lower() in SUIT_WORDS:
        suit = SUIT_WORDS.index(key.lower())
    if suit is None:
        raise CardError(f"unknown suit {text!r}: suits are C, D, H, S (or ♣ ♦ ♥ ♠)")
    return suit


def card_name(card: Card) -> str:
    """The short name of ``card``: ``"8H"``, ``"10S"``, ``"QC"``."""
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"card {card!r} is out of range: cards are 0 to 51")
    return RANK_NAMES[card % NUM_RANKS + 1] + SUIT_LETTERS[card // NUM_RANKS]


def card_symbol(card: Card) -> str:
    """The name of ``card`` with its suit symbol: ``"8♥"``."""
    return card_name(card)[:-1] + SUIT_SYMBOLS[card_suit(card)]


def parse_card(text: str) -> Card:
    """Read a card such as ``"8H"``, ``"10S"``, ``"TS"``, ``"qc"`` or ``"8♥"``.

    :raises CardError: naming what was wrong and the accepted forms.
    """
    key = text.strip()
    if len(key) < 2:
        raise CardError(
            f"cannot read card {text!r}: write rank then suit, like 8H, 10S, QC or 8♥"
        )
    try:
        return make_card(parse_rank(key[:-1]), parse_suit(key[-1]))
    except CardError as err:
        raise CardError(f"cannot read card {text!r}: {err}") from None


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas: ``"8H 10S, QC"``."""
    return [parse_card(part) for part in text.replace(",", " ").split()]


def cards_name(cards: Iterable[Card]) -> str:
    """The names of ``cards`` joined by spaces."""
    return " ".join(card_name(c) for c in cards)


def new_pack(decks: int = 1) -> list[Card]:
    """An ordered pack of ``decks`` standard 52-card decks (ids repeat across decks)."""
    if decks not in (1, 2):
        raise CardError(f"decks must be 1 or 2, not {decks!r}")
    return list(range(NUM_CARDS)) * decks


def shuffle(cards: list[Card], rng: random.Random) -> None:
    """Shuffle ``cards`` in place with the caller's generator (never the global one).

    A sort on one ``rng.random()`` key per card: uniform (equal keys have probability about
    2**-53) and about twice as fast as ``random.shuffle`` for a pack, which matters to search
    bots that deal millions of times.
    """
    draw = rng.random

    def key(_card: Card) -> float:
        return draw()

    cards.sort(key=key)


def shuffled_pack(decks: int, rng: random.Random) -> list[Card]:
    """A pack shuffled with the caller's generator (never the global one)."""
    pack = new_pack(decks)
    shuffle(pack, rng)
    return pack


# --- hands as bitmasks -----------------------------------------------------------------------

SUIT_MASKS = tuple(((1 << NUM_RANKS) - 1) << (s * NUM_RANKS) for s in range(NUM_SUITS))
RANK_MASKS = (0,) + tuple(
    sum(1 << make_card(r, s) for s in range(NUM_SUITS)) for r in range(1, NUM_RANKS + 1)
)


def mask_add(mask: int, card: Card) -> int:
    """``mask`` with one more copy of ``card`` (at most two copies)."""
    bit = 1 << card
    if not mask & bit:
        return mask | bit
    high = bit << NUM_CARDS
    if mask & high:
        raise CardError(f"a hand cannot hold three copies of {card_name(card)}")
    return mask | high


def mask_remove(mask: int, card: Card) -> int:
    """``mask`` with one copy of ``card`` removed (the second copy first)."""
    high = 1 << (card + NUM_CARDS)
    if mask & high:
        return mask ^ high
    bit = 1 << card
    if not mask & bit:
        raise CardError(f"the hand holds no {card_name(card)}")
    return mask ^ bit


def mask_distinct(mask: int) -> int:
    """The 52-bit mask of the card ids present in a (possibly two-deck) hand mask."""
    return (mask | (mask >> NUM_CARDS)) & FULL_PACK_MASK


def mask_from_cards(cards: Iterable[Card]) -> int:
    """The hand mask holding ``cards`` (with repeats for a second copy)."""
    mask = 0
    for card in cards:
        mask = mask_add(mask, card)
    return mask


def mask_cards(mask: int) -> list[Card]:
    """The cards of a hand mask, sorted, a second copy listed twice."""
    low = mask & FULL_PACK_MASK
    high = mask >> NUM_CARDS
    if high:
        return sorted(_bits(low) + _bits(high))
    return _bits(low)


def mask_count(mask: int) -> int:
    """How many cards a hand mask holds."""
    return mask.bit_count()


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def bits(mask: int) -> list[int]:
    """The set bit positions of ``mask`` in increasing order."""
    return _bits(mask)

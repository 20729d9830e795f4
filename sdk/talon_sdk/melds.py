"""Crazy Rummy melds: the rules of sets, runs, lay-offs and wild exchanges, and a finder that lists
the melds, lay-offs and exchanges open to a hand (rules spec Part A, rules 8-14; section 2 rule 3).

Why it lives in the SDK: in the table phase the referee cannot list every legal action, so it
validates what a bot proposes, and the bot needs the very same rules to propose something
legal. One pure module serves both, so they never disagree. The rules themselves (what a card
in a meld stands for, the ``make_*`` checks and their :class:`MeldError` messages) are in
:mod:`talon_sdk.meld_model` and re-exported here; this module adds the finder, which only
returns options those checks accept. Both depend only on the standard library and
:mod:`talon_sdk.cards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from talon_sdk.cards import NUM_RANKS, Card, card_rank, card_suit
from talon_sdk.meld_model import (
    KIND_NAMES,
    MAX_RUN,
    RUN,
    SET,
    Exchange,
    LayOff,
    Meld,
    MeldError,
    MeldRules,
    exchange,
    is_wild,
    lay_off,
    make_meld,
    make_run,
    make_set,
    natural_suit_count,
    position_card,
    room,
    run_span,
    set_order,
)

__all__ = [
    "KIND_NAMES", "MAX_RUN", "RUN", "SET", "Exchange", "LayOff", "Meld", "MeldError", "MeldRules",
    "exchange", "find_exchanges", "find_lay_offs", "find_melds", "is_wild", "lay_off", "make_meld",
    "make_run", "make_set", "natural_suit_count", "position_card", "room", "run_span", "set_order",
]


# --- the finder ----------------------------------------------------------------------------------


def find_melds(hand: Sequence[Card], rules: MeldRules, *, leave: int = 1,
               must_include: Card | None = None) -> list[Meld]:
    """A canonical list of the new melds ``hand`` can lay down.

    ``leave`` cards must stay in the hand (a final discard is always required, so 1). With
    ``must_include`` only melds holding that card are listed. The list is complete up to the
    choice of wilds: every set of naturals with every number of wilds, every run window with the
    naturals it covers and wilds in its gaps (a wild that is the gap's own card is preferred),
    and all-wild sets of the wild rank. All-wild runs and other all-wild sets are legal but not
    listed.
    """
    largest = len(hand) - leave
    if largest < 3:
        return []
    wilds = sorted(c for c in hand if is_wild(c, rules.wild_rank))
    forced_wild = must_include is not None and is_wild(must_include, rules.wild_rank)
    if forced_wild:
        wilds.remove(must_include)  # type: ignore[arg-type]
        wilds.insert(0, must_include)  # type: ignore[arg-type]
    naturals = sorted(c for c in hand if not is_wild(c, rules.wild_rank))
    found = _find_sets(naturals, wilds, rules, largest)
    found.extend(_find_runs(naturals, wilds, rules, largest, forced_wild))
    if must_include is not None:
        found = [m for m in found if must_include in m.cards]
    return found


def _find_sets(naturals: list[Card], wilds: list[Card], rules: MeldRules,
               largest: int) -> list[Meld]:
    by_rank: dict[int, list[Card]] = {}
    for card in naturals:
        by_rank.setdefault(card_rank(card), []).append(card)
    top = min(rules.set_max, largest)
    found: list[Meld] = []
    for rank, group in by_rank.items():
        if len(group) + len(wilds) < 3:
            continue
        seen: set[tuple[int, ...]] = set()
        for size in range(1, min(len(group), top) + 1):
            for combo in combinations(group, size):
                if combo in seen or not _suits_fit(combo, rules.decks):
                    continue
                seen.add(combo)
                for extra in range(max(0, 3 - size), min(len(wilds), top - size) + 1):
                    cards = combo + tuple(wilds[:extra])
                    found.append(Meld(SET, cards, (rank,) * len(cards)))
    for size in range(3, min(len(wilds), top) + 1):
        found.append(Meld(SET, tuple(wilds[:size]), (rules.wild_rank,) * size))
    return found


def _suits_fit(cards: Sequence[Card], decks: int) -> bool:
    suits = [c // NUM_RANKS for c in cards]
    return all(suits.count(s) <= decks for s in set(suits))


def _find_runs(naturals: list[Card], wilds: list[Card], rules: MeldRules, largest: int,
               forced_wild: bool) -> list[Meld]:
    found: list[Meld] = []
    top = 14 if rules.ace_high else NUM_RANKS
    for suit in range(4):
        present = {card_rank(c): c for c in naturals if c // NUM_RANKS == suit}
        if not present or len(present) + len(wilds) < 3:
            continue
        if rules.ace_high and 1 in present:
            present[14] = present[1]
        for low in range(1, top - 1):
            ceiling = min(low + MAX_RUN - 1, NUM_RANKS if low == 1 else top, low + largest - 1)
            gaps: list[int] = []
            covered = 0
            for high in range(low, ceiling + 1):
                if high in present:
                    covered += 1
                else:
                    gaps.append(high)
                    if len(gaps) > len(wilds):
                        break
                if high - low >= 2 and covered:
                    found.append(_window(suit, low, high, present, gaps, wilds, forced_wild))
    return found


def _window(suit: int, low: int, high: int, present: dict[int, Card], gaps: list[int],
            wilds: list[Card], forced_wild: bool) -> Meld:
    pool = list(wilds)
    filler: dict[int, Card] = {}
    if forced_wild and gaps:
        filler[gaps[0]] = pool.pop(0)
    for value in gaps:
        own = position_card(suit, value)
        if value not in filler and own in pool:
            filler[value] = own
            pool.remove(own)
    for value in gaps:
        if value not in filler:
            filler[value] = pool.pop(0)
    cards = tuple(present[v] if v in present else filler[v] for v in range(low, high + 1))
    meanings = tuple(position_card(suit, v) for v in range(low, high + 1))
    return Meld(RUN, cards, meanings)


def find_lay_offs(hand: Sequence[Card], melds: Sequence[Meld], rules: MeldRules, *,
                  leave: int = 1) -> list[LayOff]:
    """Every lay-off of one card from ``hand`` onto ``melds`` (indexes into ``melds``).

    A wild on a run is listed once per open end. Nothing is listed when the lay-off would leave
    fewer than ``leave`` cards in the hand. Whether the player has opened is the caller's
    business.
    """
    if len(hand) - 1 < leave:
        return []
    distinct = sorted(set(hand))
    found: list[LayOff] = []
    for index, meld in enumerate(melds):
        if meld.kind == SET:
            found.extend(_set_lay_offs(index, meld, distinct, rules))
        else:
            found.extend(_run_lay_offs(index, meld, distinct, rules))
    return found


def _set_lay_offs(index: int, meld: Meld, distinct: list[Card], rules: MeldRules) -> list[LayOff]:
    if len(meld.cards) >= rules.set_max:
        return []
    rank = meld.meanings[0]
    found: list[LayOff] = []
    for card in distinct:
        if is_wild(card, rules.wild_rank) or (
            card_rank(card) == rank
            and natural_suit_count(meld, card_suit(card), rules.wild_rank) < rules.decks
        ):
            found.append(LayOff(card, rank, index))
    return found


def _run_lay_offs(index: int, meld: Meld, distinct: list[Card], rules: MeldRules) -> list[LayOff]:
    if len(meld.cards) >= MAX_RUN:
        return []
    suit, low, high = run_span(meld)
    ends: list[Card] = []
    if low > 1:
        ends.append(position_card(suit, low - 1))
    if high < NUM_RANKS or (rules.ace_high and high == NUM_RANKS):
        end = position_card(suit, high + 1)
        if end not in ends:
            ends.append(end)
    found: list[LayOff] = []
    for card in distinct:
        if is_wild(card, rules.wild_rank):
            found.extend(LayOff(card, end, index) for end in ends)
        elif card in ends:
            found.append(LayOff(card, card, index))
    return found


def find_exchanges(hand: Sequence[Card], melds: Sequence[Meld], rules: MeldRules) -> list[Exchange]:
    """Every wild exchange ``hand`` can make on ``melds`` (whether allowed now is the caller's)."""
    held = sorted(set(hand))
    found: list[Exchange] = []
    for index, meld in enumerate(melds):
        if meld.kind == RUN:
            for card, meaning in zip(meld.cards, meld.meanings):
                if (is_wild(card, rules.wild_rank) and not is_wild(meaning, rules.wild_rank)
                        and meaning in held):
                    found.append(Exchange(meaning, card, index))
            continue
        rank = meld.meanings[0]
        wild_ids = sorted({c for c in meld.cards if is_wild(c, rules.wild_rank)})
        if rank == rules.wild_rank or not wild_ids:
            continue
        for card in held:
            if (card_rank(card) == rank and not is_wild(card, rules.wild_rank)
                    and natural_suit_count(meld, card_suit(card), rules.wild_rank) < rules.decks):
                found.extend(Exchange(card, wild, index) for wild in wild_ids)
    return found

"""The SDK's meld rules and meld finder (talon_sdk.melds), hand-worked and against brute force."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from talon_sdk.cards import card_rank, card_suit, parse_card, parse_cards
from talon_sdk.melds import (
    RUN,
    SET,
    Exchange,
    LayOff,
    Meld,
    MeldError,
    MeldRules,
    exchange,
    find_exchanges,
    find_lay_offs,
    find_melds,
    lay_off,
    make_meld,
    make_run,
    make_set,
    room,
)

c = parse_card
C = parse_cards
TWOS = MeldRules(wild_rank=2)


def run(text: str, meanings: str, rules: MeldRules = TWOS) -> Meld:
    return make_run(C(text), C(meanings), rules)


def test_runs_come_out_in_rank_order_with_their_meanings() -> None:
    meld = run("7H 2C 5H", "7H 6H 5H")
    assert meld == Meld(RUN, tuple(C("5H 2C 7H")), tuple(C("5H 6H 7H")))
    assert run("AH 2H 3H", "AH 2H 3H").meanings == tuple(C("AH 2H 3H"))
    full = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    assert len(run(full, full).cards) == 13 and room(run(full, full), TWOS) == 0


@pytest.mark.parametrize("cards,meanings,rules,message", [
    ("4H 5H 7H", "4H 5H 7H", TWOS, "6H is missing and no wild stands for it"),
    ("3H 4H 8H", "3H 4H 8H", TWOS, "5H, 6H, 7H are missing and no wild stands for them"),
    ("QH KH AH", "QH KH AH", TWOS, "the Ace is low only (ace_in_runs = low)"),
    ("KH AH 3H", "KH AH 3H", MeldRules(2, ace_high=True), "4H to QH (9 cards) are missing"),
    ("4H 5H", "4H 5H", TWOS, "a run holds 3 to 13 cards"),
    ("4H 5H 6S", "4H 5H 6S", TWOS, "mixes hearts and spades"),
    ("4H 5H 2C", "4H 5H 5H", TWOS, "two cards stand for 5H"),
    ("4H 5H 6H", "4H 5H 7H", TWOS, "6H is not wild (2s are wild this deal)"),
    ("2C 2D 2S", "5H 6H 7H", MeldRules(2, allow_all_wild=False), "all-wild melds are off"),
])
def test_bad_runs_say_why(cards: str, meanings: str, rules: MeldRules, message: str) -> None:
    with pytest.raises(MeldError) as err:
        make_run(C(cards), C(meanings), rules)
    assert message in str(err.value)


def test_the_ace_may_be_high_with_ace_in_runs_high_or_low() -> None:
    high = MeldRules(2, ace_high=True)
    meld = run("AH QH KH", "AH QH KH", high)
    assert meld.meanings == tuple(C("QH KH AH"))
    assert lay_off(meld, c("JH"), c("JH"), high).meanings == tuple(C("JH QH KH AH"))
    with pytest.raises(MeldError, match="it can only take JH"):
        lay_off(meld, c("2H"), c("2H"), high)
    low_run = run("AH 2C 3H", "AH 2H 3H", high)
    assert low_run.meanings == tuple(C("AH 2H 3H"))
    king_high = run("JH QH KH", "JH QH KH", high)
    assert lay_off(king_high, c("AH"), c("AH"), high).meanings == tuple(C("JH QH KH AH"))
    with pytest.raises(MeldError, match="it can only take 10H$"):
        lay_off(king_high, c("AH"), c("AH"), TWOS)


def test_sets_hold_one_rank_in_different_suits() -> None:
    assert make_set(C("2C 7H 7D"), (7, 7, 7), TWOS) == Meld(SET, tuple(C("7D 7H 2C")), (7, 7, 7))
    with pytest.raises(MeldError, match="it holds 7H twice"):
        make_set(C("7H 7H 7D"), (7, 7, 7), TWOS)
    two_packs = MeldRules(2, decks=2, set_max=8)
    assert len(make_set(C("7H 7H 7D 7D 7C 7C 7S 7S"), (7,) * 8, two_packs).cards) == 8
    with pytest.raises(MeldError, match="more than twice"):
        make_set(C("7H 7H 7H"), (7, 7, 7), two_packs)
    with pytest.raises(MeldError, match="the wild 2C is declared as 8"):
        make_set(C("7H 7D 2C"), (7, 7, 8), TWOS)
    with pytest.raises(MeldError, match="its meanings are its rank"):
        make_set(C("2H 2D 2C"), (14, 14, 14), TWOS)
    assert make_set(C("AC AD AH"), (1, 1, 1), MeldRules(1, allow_all_wild=False)).cards == \
        tuple(C("AC AD AH"))


def test_lay_offs_extend_runs_at_either_end_and_fill_sets() -> None:
    meld = run("5H 6H 2C", "5H 6H 7H")
    assert lay_off(meld, c("4H"), c("4H"), TWOS).meanings == tuple(C("4H 5H 6H 7H"))
    assert lay_off(meld, c("2D"), c("8H"), TWOS).cards == tuple(C("5H 6H 2C 2D"))
    with pytest.raises(MeldError, match="8H is not wild, so it can only stand for itself"):
        lay_off(meld, c("8H"), c("4H"), TWOS)
    with pytest.raises(MeldError, match="4S does not extend the run 5H 6H 7H"):
        lay_off(meld, c("2D"), c("4S"), TWOS)
    full = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    with pytest.raises(MeldError, match="complete"):
        lay_off(run(full, full), c("2D"), c("AS"), TWOS)
    trio = make_set(C("7H 7D 7C"), (7, 7, 7), TWOS)
    four = lay_off(trio, c("2S"), 7, TWOS)
    assert four.cards == tuple(C("7C 7D 7H 2S")) and room(four, TWOS) == 0
    with pytest.raises(MeldError, match="full"):
        lay_off(four, c("7S"), 7, TWOS)
    with pytest.raises(MeldError, match="its meaning must be 7"):
        lay_off(trio, c("2S"), 8, TWOS)
    with pytest.raises(MeldError, match="already holds 7H"):
        lay_off(trio, c("7H"), 7, TWOS)


def test_exchanges_take_a_wild_for_the_card_it_stands_for() -> None:
    meld = run("5H 6H 2C", "5H 6H 7H")
    assert exchange(meld, c("7H"), c("2C"), TWOS).cards == tuple(C("5H 6H 7H"))
    with pytest.raises(MeldError, match="stands for 8H"):
        exchange(meld, c("8H"), c("2C"), TWOS)
    with pytest.raises(MeldError, match="2D is itself wild"):
        exchange(meld, c("2D"), c("2C"), TWOS)
    with pytest.raises(MeldError, match="5H is not a wild"):
        exchange(meld, c("7H"), c("5H"), TWOS)
    trio = make_set(C("7H 7D 2C"), (7, 7, 7), TWOS)
    assert exchange(trio, c("7S"), c("2C"), TWOS).cards == tuple(C("7D 7H 7S"))
    with pytest.raises(MeldError, match="is not a 7"):
        exchange(trio, c("8S"), c("2C"), TWOS)


def test_the_finder_lists_sets_runs_lay_offs_and_exchanges() -> None:
    hand = C("5H 6H 2C 7D 7S 9C KD")
    found = find_melds(hand, TWOS)
    assert found == [
        Meld(SET, tuple(C("7D 7S 2C")), (7, 7, 7)),
        Meld(RUN, tuple(C("2C 5H 6H")), tuple(C("4H 5H 6H"))),
        Meld(RUN, tuple(C("5H 6H 2C")), tuple(C("5H 6H 7H"))),
    ]
    assert find_melds(hand[:3], TWOS) == []  # a final discard must stay in the hand
    assert len(find_melds(hand[:3], TWOS, leave=0)) == 2
    assert find_melds(hand, TWOS, must_include=c("7S")) == [found[0]]
    table = [run("5H 6H 2C", "5H 6H 7H"), make_set(C("7H 7D 2S"), (7, 7, 7), TWOS)]
    assert find_lay_offs(C("4H 2D 7C 9S"), table, TWOS) == [
        LayOff(c("2D"), c("4H"), 0), LayOff(c("2D"), c("8H"), 0), LayOff(c("4H"), c("4H"), 0),
        LayOff(c("7C"), 7, 1), LayOff(c("2D"), 7, 1),
    ]
    assert find_exchanges(C("7H 7C 7S"), table, TWOS) == [
        Exchange(c("7H"), c("2C"), 0), Exchange(c("7C"), c("2S"), 1), Exchange(c("7S"), c("2S"), 1),
    ]


def test_the_finder_places_a_wild_on_its_own_card_first() -> None:
    sevens = MeldRules(7)
    found = find_melds(C("5H 6H 7C 7H 9D"), sevens)
    runs = [m for m in found if m.kind == RUN and m.meanings == tuple(C("5H 6H 7H"))]
    assert runs == [Meld(RUN, tuple(C("5H 6H 7H")), tuple(C("5H 6H 7H")))]
    forced = find_melds(C("5H 6H 7C 7H 9D"), sevens, must_include=c("7C"))
    assert Meld(RUN, tuple(C("5H 6H 7C")), tuple(C("5H 6H 7H"))) in forced
    assert all(c("7C") in m.cards for m in forced)


# --- the finder against brute force ---------------------------------------------------------------


def brute_valid(cards: tuple[int, ...], rules: MeldRules) -> bool:
    """Whether some declaration makes ``cards`` a meld, found without the finder's windows."""
    naturals = [x for x in cards if card_rank(x) != rules.wild_rank]
    if not naturals:
        return True  # all wild: a set of the wild rank standing for itself
    if len({card_rank(x) for x in naturals}) == 1 and len(cards) <= rules.set_max:
        suits = [card_suit(x) for x in naturals]
        if all(suits.count(s) <= rules.decks for s in suits):
            return True
    if len({card_suit(x) for x in naturals}) != 1 or len(cards) > 13:
        return False
    for values in ([card_rank(x) for x in naturals],
                   [14 if card_rank(x) == 1 else card_rank(x) for x in naturals]):
        if len(set(values)) != len(values):
            continue
        if values != [card_rank(x) for x in naturals] and not rules.ace_high:
            continue
        for low in range(1, 15 - len(cards) + 1):
            high = low + len(cards) - 1
            if low == 1 and high > 13 or high > (14 if rules.ace_high else 13):
                continue
            if all(low <= v <= high for v in values):
                return True
    return False


hands = st.lists(st.integers(0, 51), min_size=3, max_size=9, unique=True)


@settings(max_examples=60, deadline=None)
@given(hand=hands, wild_rank=st.integers(1, 13), ace_high=st.booleans())
def test_every_listed_meld_is_valid_and_the_largest_is_found(hand: list[int], wild_rank: int,
                                                             ace_high: bool) -> None:
    rules = MeldRules(wild_rank, ace_high=ace_high)
    found = find_melds(hand, rules)
    for meld in found:
        checked = make_meld(meld.kind, meld.cards, meld.meanings, rules)
        assert sorted(checked.cards) == sorted(meld.cards)
        assert all(hand.count(x) >= meld.cards.count(x) for x in meld.cards)
        assert len(meld.cards) < len(hand)
    assert len(set(found)) == len(found)
    sizes = [len(s) for n in range(3, len(hand)) for s in combinations(hand, n)
             if brute_valid(s, rules)]
    assert bool(sizes) == bool(found)
    assert max(sizes, default=0) == max((len(m.cards) for m in found), default=0)


@settings(max_examples=60, deadline=None)
@given(hand=hands, wild_rank=st.integers(1, 13), seed_cards=st.lists(st.integers(0, 51), min_size=6,
                                                                     max_size=12, unique=True))
def test_every_listed_lay_off_and_exchange_applies(hand: list[int], wild_rank: int,
                                                   seed_cards: list[int]) -> None:
    rules = MeldRules(wild_rank)
    table = [m for m in find_melds(seed_cards, rules, leave=0)
             if not set(m.cards) & set(hand)][:6]
    for lay in find_lay_offs(hand, table, rules):
        lay_off(table[lay.meld], lay.card, lay.meaning, rules)
    for ex in find_exchanges(hand, table, rules):
        exchange(table[ex.meld], ex.natural, ex.wild, rules)
    for index, meld in enumerate(table):
        for card in set(hand):
            for meaning in {card, card_rank(card), *range(52)} if meld.kind == RUN else {card_rank(card)}:
                try:
                    lay_off(meld, card, meaning, rules)
                except MeldError:
                    continue
                assert LayOff(card, meaning, index) in find_lay_offs(hand, table, rules)


def test_set_errors_name_the_real_fault() -> None:
    """A natural of another rank is named as such, whatever meaning it was given; a natural of
    the right rank with another meaning is told it stands for itself."""
    sevens = make_set(C("7C 7D 7H"), [7, 7, 7], TWOS)
    for meaning in (7, 9):
        with pytest.raises(MeldError, match="^9S is not a 7 and is not wild, so it cannot join the set of 7s$"):
            lay_off(sevens, c("9S"), meaning, TWOS)
    with pytest.raises(MeldError, match="its meaning must be 7"):
        lay_off(sevens, c("2S"), 9, TWOS)  # a wild: only its meaning is wrong
    with pytest.raises(MeldError, match="9H is not wild, so it stands for itself: declare it as 9"):
        make_set(C("9C 9D 9H"), [9, 9, 8], TWOS)
    with pytest.raises(MeldError, match="KS is not a 9 and is not wild"):
        make_set(C("9C 9D KS"), [9, 9, 8], TWOS)

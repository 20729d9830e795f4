"""Cards: the id layout, the paired parse/name helpers and hand masks."""

import random

import pytest

from referee.cards import (
    CardError, card_name, card_rank, card_suit, make_card, mask_add, mask_cards, mask_count,
    mask_distinct, mask_from_cards, mask_remove, parse_card, parse_cards, shuffled_pack,
)


def test_layout_is_suit_major_with_ace_low():
    assert make_card(1, 0) == 0  # AC
    assert make_card(13, 3) == 51  # KS
    assert card_rank(parse_card("8H")) == 8 and card_suit(parse_card("8H")) == 2


@pytest.mark.parametrize("text,name", [("8H", "8H"), ("10S", "10S"), ("TS", "10S"), ("qc", "QC"),
                                       ("8♥", "8H"), ("A♠", "AS"), (" kd ", "KD")])
def test_parse_and_name_are_paired(text, name):
    assert card_name(parse_card(text)) == name


def test_every_card_round_trips():
    assert [parse_card(card_name(c)) for c in range(52)] == list(range(52))


@pytest.mark.parametrize("bad", ["", "8", "1H", "11H", "8X", "ZZ"])
def test_bad_cards_say_what_is_allowed(bad):
    with pytest.raises(CardError, match="rank|suit|card"):
        parse_card(bad)


def test_parse_cards_accepts_spaces_and_commas():
    assert parse_cards("8H 10S, QC") == [parse_card("8H"), parse_card("10S"), parse_card("QC")]


def test_two_copies_in_a_mask():
    eight = parse_card("8H")
    mask = mask_add(mask_add(0, eight), eight)
    assert mask_count(mask) == 2 and mask_cards(mask) == [eight, eight]
    assert mask_distinct(mask) == 1 << eight
    mask = mask_remove(mask, eight)
    assert mask_cards(mask) == [eight]
    with pytest.raises(CardError):
        mask_add(mask_add(mask, eight), eight)
    with pytest.raises(CardError, match="holds no"):
        mask_remove(0, eight)


def test_shuffle_uses_the_given_generator_only():
    a = shuffled_pack(2, random.Random(7))
    random.seed(123)  # the global generator must not matter
    b = shuffled_pack(2, random.Random(7))
    assert a == b and sorted(a) == sorted(list(range(52)) * 2)
    assert mask_cards(mask_from_cards(a)) == sorted(a)

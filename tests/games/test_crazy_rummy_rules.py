"""Crazy Rummy rule sets: the preset, switch values, combinations and player counts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.games import RulesError, make_rules, new_match
from referee.games.crazy_rummy.rules import CrazyRummyRules


def rules(**overrides: Any) -> CrazyRummyRules:
    return make_rules("crazy-rummy", "standard", overrides)  # type: ignore[return-value]


def test_the_standard_preset_is_the_pagat_basic_game() -> None:
    standard = rules()
    assert standard.player_range() == (3, 6)
    assert standard.num_deals == 13 and standard.wild_ranks == tuple(range(1, 14))
    assert standard.cards_per_hand(4) == 7 and standard.set_max == 4
    assert standard.turn_limit(5) == 200
    assert standard.switches()["one_card_rule"] is True
    assert standard.switches()["stock_exhausted"] == "end_deal"
    assert standard.overrides() == {} and standard.to_json() == {
        "game": "crazy-rummy", "preset": "standard", "overrides": {}}


def test_values_are_read_from_text() -> None:
    text = rules(one_card_rule="off", go_out_bonus="-15", hand_size="10", decks="2",
                 max_turns_per_deal="60", allow_all_wild_melds="no")
    assert text.one_card_rule is False and text.go_out_bonus == -15 and text.hand_size == 10
    assert text.decks == 2 and text.turn_limit(3) == 60 and text.allow_all_wild_melds is False
    assert text.overrides()["go_out_bonus"] == -15


@pytest.mark.parametrize("overrides,message", [
    ({"jokers": True}, "unknown switch 'jokers' for crazy-rummy; switches are: players, decks"),
    ({"wild_value": 30}, "switch 'wild_value': 30 is not allowed; allowed: 25, 20, 15"),
    ({"hand_size": 14}, "allowed: an integer from 3 to 13 or auto"),
    ({"max_turns_per_deal": 0}, "allowed: an integer from 1 up or auto"),
    ({"stock_exhausted": "burn"}, "allowed: end_deal, reshuffle, turn_over"),
    ({"ace_in_runs": "high"}, "allowed: low, high_or_low"),
    ({"value_scheme": "beanie", "court_values": "by_rank"}, "value_scheme 'beanie' fixes"),
    ({"double_deck_set_max": 4}, "double_deck_set_max only applies with decks = 2"),
    ({"hand_size": 7.5}, "switch 'hand_size': 7.5 is not allowed; allowed: an integer from 3 to 13 or auto"),
    ({"max_turns_per_deal": 2.9}, "switch 'max_turns_per_deal': 2.9 is not allowed"),
])
def test_bad_switches_are_named_with_the_allowed_values(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError) as err:
        rules(**overrides)
    assert message in str(err.value)


@pytest.mark.parametrize("switch,value", [
    ("press", "on"), ("seven_card_run_reset", True), ("up_for_two", "on"),
    ("declare_four_wilds", "on"), ("first_turn_go_out", "meld_chance"), ("stock_exhausted", "take_or_end"),
    ("wild_sequence", "joker"), ("wild_sequence", "dealer_choice"), ("players", "up_to_12"),
    ("tie_policy", "extra_deal"), ("double_deck_set_max", "unlimited_wilds"),
])
def test_known_variants_not_implemented_are_refused_by_name(switch: str, value: Any) -> None:
    with pytest.raises(RulesError, match="is a known variant that Talon does not implement"):
        rules(**{switch: value})


def test_the_switch_table_lists_what_is_not_implemented() -> None:
    table = {sw.name: sw.to_json() for sw in CrazyRummyRules.SWITCHES}
    assert table["press"]["choices"] == [False] and table["press"]["not_implemented"] == ["on"]
    assert table["hand_size"]["special"] == ["auto"]
    assert "reshuffle" in table["stock_exhausted"]["choices"]


def test_unknown_presets_are_refused() -> None:
    with pytest.raises(RulesError, match="unknown preset 'gin'.*presets are: standard"):
        make_rules("crazy-rummy", "gin")


@pytest.mark.parametrize("players", [1, 7, 12])
def test_player_counts_outside_three_to_six_are_refused(players: int) -> None:
    with pytest.raises(RulesError, match="allowed: 3 to 6"):
        new_match("crazy-rummy", "standard", players, 1)


def test_two_players_need_the_players_switch() -> None:
    with pytest.raises(RulesError, match="set the switch players = '2-6'"):
        new_match("crazy-rummy", "standard", 2, 1)
    assert rules(players="2-6").player_range() == (2, 6)
    state = new_match("crazy-rummy", rules(players="2-6"), 2, 1)
    assert state.num_players == 2


def test_a_deal_that_does_not_fit_the_pack_is_refused() -> None:
    with pytest.raises(RulesError, match="hand_size 13 with 6 players needs 80 cards"):
        new_match("crazy-rummy", rules(hand_size=13), 6, 1)
    state = new_match("crazy-rummy", rules(hand_size=13, decks=2), 6, 1)
    assert sorted(state.view(0)["hand_sizes"]) == [13] * 5 + [14]
    assert state.card_count() == 104


@pytest.mark.parametrize("sequence,ranks", [
    ("ace_to_king", list(range(1, 14))),
    ("two_to_king", list(range(2, 14))),
    ("two_to_king_then_ace", list(range(2, 14)) + [1]),
    ("ace_to_king_then_ace", list(range(1, 14)) + [1]),
    ("king_to_ace", list(range(13, 0, -1))),
])
def test_the_wild_sequence_fixes_the_wild_rank_of_every_deal(sequence: str, ranks: list[int]) -> None:
    state = new_match("crazy-rummy", rules(wild_sequence=sequence, max_turns_per_deal=3), 3, 4)
    chooser = random.Random(4)
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[chooser.randrange(len(legal))])
    assert [e.data["wild_rank"] for e in state.events if e.kind == "deal"] == ranks
    assert len(state.hand_scores) == len(ranks)

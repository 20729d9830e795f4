"""Crazy Eights: the switches by the spec's own names, strict values, and rule interactions
that an audit of the engine against spec Part B found wrong (each test failed before its fix).
"""

from __future__ import annotations

import pytest
from eights_helpers import act, names, setup

from referee.games import IllegalActionError, RulesError, make_rules, new_match

# --- switch names and values as the spec writes them (B.3, B.5) -----------------------------------


def test_special_cards_shorthand_sets_the_pagat_typical_ranks():
    rules = make_rules("crazy-eights", "classic", {"special_cards": "pagat_typical"})
    assert (rules.skip_rank, rules.reverse_rank, rules.draw_two_rank, rules.draw_two_stacking) == ("Q", "A", "2", True)
    assert rules.switches() == make_rules("crazy-eights", "specials").switches()  # specials = classic + these
    assert "special_cards" not in rules.to_json()["overrides"]  # replays name the switches it stands for
    off = make_rules("crazy-eights", "specials", {"special_cards": "none"})
    assert (off.skip_rank, off.reverse_rank, off.draw_two_rank) == ("none", "none", "none")
    # a rank switch beside the shorthand wins, whatever the order they are given in
    jacks = make_rules("crazy-eights", "pagat", {"skip_rank": "J", "special_cards": "pagat_typical"})
    assert (jacks.skip_rank, jacks.reverse_rank) == ("J", "A")
    with pytest.raises(RulesError, match=r"switch 'special_cards': 'on' is not allowed; allowed: none, pagat_typical"):
        make_rules("crazy-eights", "pagat", {"special_cards": "on"})


def test_players_switch_as_in_the_spec():
    house = make_rules("crazy-eights", "house")
    assert house.players == "2-7" and house.player_range() == (2, 7)
    with pytest.raises(RulesError, match=r"players: 8 .* allowed: 2 to 7 .*set the switch players = '2-8'"):
        new_match("crazy-eights", house, 8, 1)
    assert new_match("crazy-eights", make_rules("crazy-eights", "house", {"players": "2-8"}), 8, 1).num_players == 8
    with pytest.raises(RulesError, match=r"switch 'players': '2-9' is not allowed; allowed: 2-8, 2-7"):
        make_rules("crazy-eights", "pagat", {"players": "2-9"})


def test_eight_names_suit_on_is_the_default():
    assert make_rules("crazy-eights", "pagat").eight_names_suit == "on"
    s = setup("pagat", 2, ["8C 9S", "2C 2D"], "4D 9H", stock="5S", overrides={"eight_names_suit": "on"})
    with pytest.raises(IllegalActionError, match="8C is wild: name a suit"):
        act(s, "play 8C")


@pytest.mark.parametrize("switch,value", [("draw_limit", 2.7), ("match_target", 150.9), ("match_hands", 1.5),
                                          ("draw_limit", float("inf")), ("draw_limit", float("nan"))])
def test_a_number_with_a_fraction_is_refused_not_truncated(switch, value):
    with pytest.raises(RulesError, match=rf"switch '{switch}': .* is not allowed; allowed: an integer"):
        make_rules("crazy-eights", "pagat", {switch: value})
    assert make_rules("crazy-eights", "pagat", {"draw_limit": 2.0}).draw_limit == 2  # a whole float is fine


@pytest.mark.parametrize("action", [False, True, 0.0, 1.0, "0"])
def test_apply_takes_only_int_actions(action):
    s = setup("pagat", 2, ["7C 9S", "2C 2D"], "4C 9H", stock="5S")
    assert 0 in s.legal_actions()  # draw: False == 0.0 == 0 would slip through a membership test
    with pytest.raises(IllegalActionError, match="is not a Crazy Eights action"):
        s.apply(action)
    assert s.current_player == 0 and s.history == []


# --- rule interactions ------------------------------------------------------------------------------


def test_must_finish_on_eight_holds_when_answering_a_draw_two_chain():
    s = setup("specials", 3, ["2H 5C", "2C", "KS 4C"], "4C 9H", stock="5S 6S 7S 9C JC QD",
              overrides={"must_finish_on_eight": True})
    act(s, "play 2H")
    assert names(s) == ["draw"]  # 2C is the last card: going out on it is not going out on an 8
    with pytest.raises(IllegalActionError, match=r"go out only on a 8 \(must_finish_on_eight = on\): draw the penalty of 2"):
        act(s, "play 2C")
    act(s, "draw")
    assert len(s.hand_cards(1)) == 3 and s.current_player == 2 and s.hand_number == 1


def test_queen_of_spades_as_skip_card_costs_the_drawer_one_turn_not_two():
    s = setup("specials", 4, ["QS 4C 5D", "3C 3D", "KD 4H", "9C 9D"], "4D 9S",
              stock="5S 6S 7S 9H 10C JC 2D 3H", overrides={"queen_of_spades_draw": 5})
    act(s, "play QS")
    assert len(s.hand_cards(1)) == 7  # seat 1 draws five and loses its turn...
    assert s.current_player == 2  # ...which is the Queen's skip: seat 2 plays, as after any Queen
    s = setup("specials", 4, ["QS QH 4C", "3C 3D", "KD 4H", "9C 9D"], "4D 9S",
              stock="5S 6S 7S 9H 10C JC 2D 3H", overrides={"queen_of_spades_draw": 5, "multi_card_play": "on"})
    act(s, "play QS")
    act(s, "play QH")  # no Queen left: the multi-card play ends by itself
    assert len(s.hand_cards(1)) == 7 and s.current_player == 3  # two Queens skip two players


# --- error messages -------------------------------------------------------------------------------


def test_a_refused_draw_names_what_to_do_instead():
    s = setup("house", 2, ["9H 4C", "2C 2D"], "4D 9S", stock="")  # empty stock, a play is possible
    assert "pass" not in names(s)
    with pytest.raises(IllegalActionError, match=r"no card can be drawn: .*; play a card$"):
        act(s, "draw")
    s = setup("house", 2, ["5C 4C", "2C 2D"], "KD 9S", stock="")  # nothing to play: pass
    with pytest.raises(IllegalActionError, match=r"no card can be drawn: .*; pass$"):
        act(s, "draw")


def test_too_many_cards_for_two_packs_names_what_to_change():
    rules = make_rules("crazy-eights", "countdown", {"countdown_start": 13})
    with pytest.raises(RulesError, match=r"8 players with 13 cards each need more than 2 pack\(s\); two packs are "
                                         r"the most: .*\(countdown_start\)"):
        new_match("crazy-eights", rules, 8, 1)
    one = make_rules("crazy-eights", "pagat", {"decks": 1, "initial_hand_size": 8})
    with pytest.raises(RulesError, match=r"need more than 1 pack\(s\); set 'decks' to 2"):
        new_match("crazy-eights", one, 7, 1)


def test_presets_and_text_values_are_read_whatever_their_case():
    rules = make_rules("crazy-eights", " Classic ", {"skip_rank": "q", "draw_mode": "UNTIL_PLAYABLE"})
    assert rules.preset == "classic" and rules.skip_rank == "Q" and rules.draw_mode == "until_playable"
    assert rules.to_json()["preset"] == "classic"
    with pytest.raises(RulesError, match="switch 'skip_rank': 'K' is not allowed; allowed: none, Q, J, A"):
        make_rules("crazy-eights", "classic", {"skip_rank": "K"})

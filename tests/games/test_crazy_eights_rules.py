"""Crazy Eights: scripted positions that walk through each rule of spec Part B, per preset.

Positions are built explicitly with ``arrange`` (never by trusting what a seed happens to
deal), and expected states are worked out by hand in the comments.
"""

from __future__ import annotations

import pytest

from eights_helpers import act, cards, hand, names, setup

from referee.cards import card_name, parse_card
from referee.games import IllegalActionError, RulesError, make_rules, new_match
from referee.games.crazy_eights import actions as A
from referee.games.crazy_eights.scoring import hand_points
from referee.games.crazy_eights.state import arrange, card_value


# --- legal plays (B.2 rule 6) --------------------------------------------------------------------


def test_match_rank_or_suit_and_any_eight_names_a_suit():
    s = setup("pagat", 2, ["7C 9S 3H 8D KD", "2C 2D"], "4C 9H", stock="5S 6S 7S")
    # sorted by id: cards are suit-major (clubs, diamonds, hearts, spades)
    assert names(s) == ["draw", "play 8D name C", "play 8D name D", "play 8D name H",
                        "play 8D name S", "play 3H", "play 9S"]


def test_after_an_eight_follow_the_named_suit_or_play_an_eight():
    s = setup("pagat", 2, ["7C 7S 8C KD", "2C 2D"], "4C 8D", stock="5S 6S", named_suit=3)
    assert "play 7S" in names(s) and "play 7C" not in names(s)
    assert "play 8C name H" in names(s)
    with pytest.raises(IllegalActionError, match="7C is neither of the named suit S nor your wild rank 8"):
        act(s, "play 7C")


def test_illegal_play_says_why_and_changes_nothing():
    s = setup("pagat", 2, ["7C 9S", "2C 2D"], "4C 9H", stock="5S")
    before = s.view(0)
    with pytest.raises(IllegalActionError, match="illegal: 7C matches neither the suit H nor the rank 9"):
        act(s, "play 7C")
    with pytest.raises(IllegalActionError, match="you hold no QH"):
        act(s, "play QH")
    with pytest.raises(IllegalActionError, match="not wild"):
        act(s, "play 9S name H")
    assert s.view(0) == before and s.current_player == 0


def test_wild_must_name_a_suit_under_required():
    s = setup("pagat", 2, ["8C 9S", "2C 2D"], "4C 9H", stock="5S")
    with pytest.raises(IllegalActionError, match="name a suit"):
        act(s, "play 8C")


# --- draw modes (B.2 rules 5, 7, 13) ----------------------------------------------------------


def test_one_then_end_draw_ends_the_turn():
    s = setup("pagat", 2, ["7C 9S", "2C 2D"], "4C 9H", stock="5S 6D")
    act(s, "draw")
    assert s.current_player == 1 and hand(s, 0) == ["7C", "6D", "9S"]


def test_until_playable_keeps_drawing_and_may_draw_when_able():
    s = setup("classic", 2, ["7C 9S", "2C 2D"], "9H", stock="5H 3S 6D")
    act(s, "draw")  # 6D: not playable on 9H
    assert s.current_player == 0 and names(s)[0] == "draw"
    act(s, "draw")  # 3S: still not playable
    act(s, "draw")  # 5H: playable; the stock is now empty and the pile has one card
    assert names(s) == ["pass", "play 5H", "play 9S"]


def test_one_may_play_offers_only_the_drawn_card_or_pass():
    s = setup("house", 2, ["7C 2S", "2C 2D"], "4C 9H", stock="5H")
    assert names(s) == ["draw"]  # cannot play, so must draw (drawing only when unable)
    act(s, "draw")
    assert s.view(0)["phase"] == "after_draw" and s.view(0)["drawn_card"] == parse_card("5H")
    assert s.view(1)["drawn_card"] is None  # the other seat never learns the drawn card
    assert names(s) == ["pass", "play 5H"]


def test_one_may_play_unplayable_draw_passes_the_turn():
    s = setup("house", 2, ["7C 2S", "2C 2D"], "4C 9H", stock="5S 3C")
    act(s, "draw")
    assert s.current_player == 1


def test_up_to_n_stops_after_n_draws_then_pass():
    s = setup("french", 2, ["7C 2S", "2C 2D"], "4C 9H", stock="KS QS JS 3C 4D")
    for _ in range(3):
        assert names(s) == ["draw"]
        act(s, "draw")
    assert names(s) == ["pass"]
    act(s, "pass")
    assert s.current_player == 1


def test_must_play_when_drawing_is_only_for_those_unable():
    s = setup("french", 2, ["7C 9S", "2C 2D"], "4C 9H", stock="KS QS")
    assert names(s) == ["play 9S"]
    with pytest.raises(IllegalActionError, match="you can play, so you must"):
        act(s, "draw")


# --- empty stock (B.2 rules 9, 14) ------------------------------------------------------------


def test_reshuffle_keeps_the_top_card_and_the_named_suit():
    s = setup("pagat", 2, ["7C 9D", "2C 2D"], "4C 5C 6C 8H", stock="", named_suit=3)
    before = s.card_count()
    act(s, "draw")
    v = s.view(0)
    assert v["pile"] == [parse_card("8H")] and v["named_suit"] == 3 and v["stock_size"] == 2
    assert s.card_count() == before and len(s.hand_cards(0)) == 3


def test_pass_when_no_card_can_be_had_and_a_full_cycle_blocks_the_hand():
    # winner_collects (house): blocked, the lowest hand collects the difference from each.
    s = setup("house", 3, ["KC", "2C 3C", "9D"], "4S 5H", stock="")
    assert names(s) == ["pass"]
    act(s, "pass")
    act(s, "pass")
    act(s, "pass")
    # hands: seat 0 KC = 10, seat 1 2C 3C = 5, seat 2 9D = 9; seat 1 collects 5 + 4
    assert s.hand_scores[-1] == [0, 9, 0]
    assert s.hand_number == 2


def test_only_a_full_cycle_of_passes_blocks():
    s = setup("pagat", 3, ["KC", "2C", "3C"], "4S 5D", stock="KH", overrides={"stock_empty": "pass"})
    act(s, "draw")  # seat 0 takes the last card
    act(s, "pass")
    act(s, "pass")
    assert s.hand_number == 1 and s.current_player == 0
    act(s, "pass")
    assert s.hand_number == 2 and s.hand_scores[-1] == [20, 2, 3]


def test_french_hand_ends_at_the_end_of_the_turn_that_empties_the_stock():
    s = setup("french", 2, ["7C 2S", "2C 2D"], "4C 9H", stock="3H")
    act(s, "draw")  # the last stock card, 3H, is playable: the turn goes on
    assert s.current_player == 0 and s.hand_number == 1
    act(s, "play 3H")
    # the hand ends; penalty scoring: everyone adds their own hand (7 + 2, 2 + 2)
    assert s.hand_scores[-1] == [9, 4] and s.hand_number == 2


# --- last card (B.2 rule 8) ---------------------------------------------------------------------


def test_forgetting_last_card_costs_two_cards():
    s = setup("pagat", 2, ["7H 9S", "2C 2D"], "4C 9H", stock="5S 6S 7S")
    assert "play 7H last" in names(s) and "play 7H" in names(s)
    act(s, "play 7H")
    assert len(s.hand_cards(0)) == 3 and s.current_player == 1
    assert any(e.kind == "last_card_penalty" for e in s.events)


def test_announcing_last_card_avoids_the_penalty():
    s = setup("pagat", 2, ["7H 9S", "2C 2D"], "4C 9H", stock="5S 6S 7S")
    act(s, "play 7H last")
    assert len(s.hand_cards(0)) == 1


def test_no_last_card_flag_without_the_rule():
    s = setup("classic", 2, ["7H 9S", "2C 2D"], "4C 9H", stock="5S")
    assert "play 7H last" not in names(s)
    with pytest.raises(IllegalActionError, match="no last-card"):
        act(s, "play 7H last")


# --- going out and scoring (B.2 rules 10-12) -----------------------------------------------------


def test_card_values():
    assert [card_value(parse_card(c), 8) for c in ["8H", "KS", "10D", "AC", "7C"]] == [50, 10, 10, 1, 7]


def test_hand_points_penalty_and_winner_collects():
    assert hand_points([0, 12, 50], 0, "penalty") == [0, 12, 50]
    assert hand_points([3, 12, 50], -1, "penalty") == [3, 12, 50]
    assert hand_points([0, 12, 50], 0, "winner_collects") == [62, 0, 0]
    # blocked: tied lowest hands each collect from higher hands and pay each other nothing
    assert hand_points([5, 5, 9], -1, "winner_collects") == [4, 4, 0]


def test_going_out_wins_the_hand_and_scores_penalty():
    s = setup("pagat", 3, ["7H", "2C 3D", "KS 8C"], "4C 9H", stock="5S 6S 7S 9C 10C")
    act(s, "play 7H")
    assert s.hand_scores[-1] == [0, 5, 60] and list(s.scores) == [0, 5, 60]


def test_winner_collects_and_match_end_at_50_per_player():
    s = setup("classic", 2, ["7H", "8C 8D KS"], "4C 9H", stock="5S 6S")
    act(s, "play 7H")
    assert list(s.scores) == [110, 0] and s.is_over and s.standings() == [1, 2]


def test_penalty_match_ends_at_100_lowest_wins():
    s = setup("pagat", 2, ["7H", "8C 8D KS"], "4C 9H", stock="5S 6S")
    act(s, "play 7H")
    assert s.is_over and list(s.scores) == [0, 110] and s.standings() == [1, 2]


def test_tied_totals_share_a_place():
    s = setup("pagat", 3, ["7H", "8C 8D", "8S 8H"], "4C 9H", stock="5S 6S")
    act(s, "play 7H")
    assert s.is_over and s.standings() == [1, 2, 2]


# --- special cards (B.3) ------------------------------------------------------------------------


def test_queen_skips_and_ace_reverses():
    s = setup("specials", 3, ["QH 5C", "2C 3D", "KS 4C"], "4C 9H", stock="5S 6S 7S 9C")
    act(s, "play QH")
    assert s.current_player == 2
    s = setup("specials", 3, ["AH 5C", "2C 3D", "KS 4C"], "4C 9H", stock="5S 6S 7S 9C")
    act(s, "play AH")
    assert s.current_player == 2 and s.view(0)["direction"] == -1


def test_ace_reverse_has_no_effect_heads_up():
    s = setup("specials", 2, ["AH 5C", "2C 3D"], "4C 9H", stock="5S 6S")
    act(s, "play AH")
    assert s.current_player == 1


def test_draw_two_stacks_and_an_eight_cannot_answer():
    s = setup("specials", 3, ["2H 5C", "2C 8D 3D", "KS 4C"], "4C 9H", stock="5S 6S 7S 9C JC QD")
    act(s, "play 2H")
    assert names(s) == ["draw", "play 2C"]
    with pytest.raises(IllegalActionError, match="draw-two chain of 2"):
        act(s, "play 8D name S")
    act(s, "play 2C")
    assert s.current_player == 2 and s.view(2)["pending_draw"] == 4
    act(s, "draw")  # takes 4 and loses the turn
    assert len(s.hand_cards(2)) == 6 and s.current_player == 0 and s.view(0)["pending_draw"] == 0
    assert "play 5C" in names(s)  # plays to the last Two as an ordinary card


def test_special_card_that_goes_out_has_no_effect():
    # a Two as the last card: the next player does not draw, so their hand scores as it was
    s = setup("specials", 3, ["2H", "2C 3D", "KS 4C"], "4C 9H", stock="5S 6S")
    act(s, "play 2H")
    assert s.hand_scores[-1] == [5 + 14, 0, 0]


def test_house_queen_draw_two_without_stacking():
    s = setup("house", 3, ["QH 5C 5D", "QC 3D", "KS 4C"], "4C 9H", stock="5S 6S 7S")
    act(s, "play QH")
    assert len(s.hand_cards(1)) == 4 and s.current_player == 2


def test_house_two_aces_skip_two_players():
    s = setup("house", 4, ["AH AC 5C", "2C 3D", "KS 4C", "9C 9D"], "4H 9H", stock="5S 6S 7S")
    act(s, "play AH")
    assert s.view(0)["phase"] == "multi_play"
    assert names(s) == ["stop", "play AC", "play AC last"]
    act(s, "play AC last")
    assert s.current_player == 3


def test_house_jack_reverse_is_a_skip_heads_up_and_eight_keeps_own_suit():
    s = setup("house", 2, ["JH 8S 5D", "QC 3D"], "4C 9H", stock="5S 6S 7S")
    act(s, "play JH")
    assert s.current_player == 0
    act(s, "play 8S last")  # no suit named: the 8 keeps its own suit
    assert s.view(1)["suit_to_follow"] == 3 and s.view(1)["named_suit"] == 3


def test_special_upcard_counts_as_played_by_the_dealer():
    for seed in range(400):
        s = new_match("crazy-eights", "specials", 4, seed)
        up = [e for e in s.events if e.kind == "upcard"][-1].data["card"]
        dealer = s.view(0)["dealer"]
        if up.startswith("Q"):
            assert s.current_player == (dealer + 2) % 4
            return
    pytest.fail("no seed dealt a Queen upcard")


def test_wild_upcard_buried_or_named_by_the_dealer():
    buried = named = False
    for seed in range(300):
        s = new_match("crazy-eights", "classic", 3, seed)
        if any(e.kind == "upcard_buried" for e in s.events):
            buried = True
            assert parse_card(s.events[-1].data["card"]) % 13 != 7
        t = new_match("crazy-eights", "pagat", 3, seed)
        if t.view(0)["phase"] == "name_suit":
            named = True
            assert t.current_player == t.view(0)["dealer"]
            assert names(t) == ["name C", "name D", "name H", "name S"]
            act(t, "name S")
            assert t.view(0)["suit_to_follow"] == 3 and t.current_player == (t.view(0)["dealer"] + 1) % 3
    assert buried and named


# --- countdown (B.4) ----------------------------------------------------------------------------


def test_countdown_personal_wild_and_per_round_redeal():
    s = new_match("crazy-eights", "countdown", 2, seed=3)
    assert s.view(0)["wild_ranks"] == [8, 8] and len(s.view(0)["hand"]) == 8
    s = arrange(s, [cards("7H"), cards("2C 3D 4S")], cards("4C 9H"), cards("5S 6S 7S 9C 10C JC QC KC AD 2D 3S 4D 5D 6D 7D 9D"), 0)
    act(s, "play 7H")
    assert s.view(0)["personal_scores"] == [7, 8] and s.hand_scores[-1] == [-1, 0]
    assert s.view(0)["wild_ranks"] == [7, 8]
    assert len(s.view(0)["hand"]) == 7 and s.view(0)["hand_sizes"][1] == 8


def test_countdown_wild_named_suit_then_own_wild_but_not_the_same_rank():
    s = new_match("crazy-eights", "countdown", 2, seed=3)
    s._personal[:] = [5, 7]
    s._wr[:] = [5, 7]
    s = arrange(s, [cards("5H 9C"), cards("5C 7D 2S 9S")], cards("4C 9H"), cards("5S 6S 7S"), 0)
    act(s, "play 5H name S")
    assert names(s) == ["draw", "play 7D name C", "play 7D name D", "play 7D name H",
                        "play 7D name S", "play 2S", "play 9S"]
    with pytest.raises(IllegalActionError, match="neither of the named suit S nor your wild rank 7"):
        act(s, "play 5C")


def test_countdown_first_to_zero_wins():
    s = new_match("crazy-eights", "countdown", 3, seed=3)
    s._personal[:] = [1, 4, 4]
    s._wr[:] = [1, 4, 4]
    s = arrange(s, [cards("AH"), cards("2C 3D"), cards("KS")], cards("4C 9H"), cards("5S 6S"), 0)
    act(s, "play AH name C")
    assert s.is_over and list(s.scores) == [0, 4, 4] and s.standings() == [1, 2, 2]


def test_countdown_continuous_deals_a_new_hand_at_once():
    s = new_match("crazy-eights", make_rules("crazy-eights", "countdown", {"countdown_mode": "continuous"}), 2, seed=3)
    s = arrange(s, [cards("7H"), cards("2C 3D")], cards("4C 9H"), cards("5S 6S 7S 9C 10C JC QC KC AD"), 0)
    act(s, "play 7H")
    assert s.hand_number == 1 and len(s.hand_cards(0)) == 7 and s.current_player == 1


# --- loop guard and rule sets ---------------------------------------------------------------


def test_loop_guard_blocks_the_hand():
    rules = make_rules("crazy-eights", "pagat", {"max_turns_per_hand": 10})
    s = new_match("crazy-eights", rules, 2, seed=5)
    while s.hand_number == 1 and not s.is_over:
        s.apply(A.DRAW if A.DRAW in s.legal_actions() else s.legal_actions()[0])
    assert any(e.kind == "loop_guard" for e in s.events)


@pytest.mark.parametrize("overrides,message", [
    ({"colour": "red"}, "unknown switch 'colour'"),
    ({"draw_mode": "some"}, "switch 'draw_mode': 'some' is not allowed; allowed: one_then_end"),
    ({"draw_limit": 0}, "switch 'draw_limit': 0 is not allowed; allowed: an integer from 1 to 20"),
    ({"skip_rank": "A", "reverse_rank": "A"}, "both use rank A"),
    ({"multi_card_play": "skip_rank_only"}, "needs a skip rank"),
])
def test_bad_rule_sets_name_the_switch(overrides, message):
    with pytest.raises(RulesError, match=message):
        make_rules("crazy-eights", "pagat", overrides)


def test_bad_player_counts_and_presets():
    with pytest.raises(RulesError, match="players: 9 is not allowed .* allowed: 2 to 8"):
        new_match("crazy-eights", "pagat", 9, 1)
    with pytest.raises(RulesError, match="allowed: 2 to 7"):
        new_match("crazy-eights", "house", 8, 1)
    with pytest.raises(RulesError, match="unknown preset 'nope'.*classic, house, pagat"):
        make_rules("crazy-eights", "nope")
    with pytest.raises(RulesError, match="set 'decks' to 2"):
        new_match("crazy-eights", make_rules("crazy-eights", "pagat", {"decks": 1, "initial_hand_size": 8}), 8, 1)


def test_switch_values_from_text_are_normalised():
    rules = make_rules("crazy-eights", "pagat", {"draw_limit": "5", "may_draw_when_able_to_play": "off", "decks": "2"})
    assert rules.draw_limit == 5 and rules.may_draw_when_able_to_play is False and rules.decks == 2
    assert rules.overrides() == {"draw_limit": 5, "may_draw_when_able_to_play": False, "decks": 2}


# --- the remaining switches -------------------------------------------------------------------


def test_eight_must_match():
    s = setup("pagat", 2, ["8C 9S KD", "2C 2D"], "4D 9H", stock="5S", overrides={"eight_must_match": True})
    assert names(s) == ["draw", "play 9S"]
    with pytest.raises(IllegalActionError, match="must itself follow"):
        act(s, "play 8C name H")


def test_eight_names_no_suit_when_off():
    s = setup("pagat", 2, ["8C 9S", "2C 2D"], "4D 9H", stock="5S", overrides={"eight_names_suit": "off"})
    assert "play 8C" in names(s) and "play 8C name H" not in names(s)
    act(s, "play 8C")
    assert s.view(1)["suit_to_follow"] == 0


def test_eight_names_another_suit_only_if_it_matched():
    s = setup("pagat", 2, ["8C 8H 9S", "2C 2D"], "4D 9H", stock="5S",
              overrides={"eight_names_suit": "only_if_matching"})
    legal = names(s)
    assert "play 8C name C" in legal and "play 8C name S" not in legal  # 8C did not follow 9H
    assert {"play 8H name C", "play 8H name S"} <= set(legal)  # 8H followed the suit


def test_must_finish_on_eight():
    s = setup("pagat", 2, ["9C", "2C 2D"], "4D 9H", stock="5S", overrides={"must_finish_on_eight": True})
    assert names(s) == ["draw"]
    with pytest.raises(IllegalActionError, match="go out only on a 8"):
        act(s, "play 9C")


def test_reveal_last_eight():
    s = setup("pagat", 2, ["7H 8S", "2C 2D"], "4D 9H", stock="5S", overrides={"reveal_last_eight": True})
    act(s, "play 7H last")
    assert s.events[-1].kind == "last_card_is_wild" and s.events[-1].data["card"] == "8S"


def test_queen_of_spades_draws_five():
    s = setup("pagat", 3, ["QS 4C", "2C 2D", "3C"], "4D 9S", stock="5S 6S 7S 9C 10C JC",
              overrides={"queen_of_spades_draw": 5})
    act(s, "play QS")
    assert len(s.hand_cards(1)) == 7 and s.current_player == 2


def test_multi_card_play_on_two_reverses_cancel():
    s = setup("specials", 4, ["AH AC 5C", "2C 3D", "KS 4C", "9C 9D"], "4H 9H", stock="5S 6S 7S",
              overrides={"multi_card_play": "on"})
    act(s, "play AH")
    act(s, "play AC")
    assert s.current_player == 1 and s.view(1)["direction"] == 1


def test_multi_card_play_stop_ends_the_turn():
    s = setup("specials", 4, ["AH AC 5C", "2C 3D", "KS 4C", "9C 9D"], "4H 9H", stock="5S 6S 7S",
              overrides={"multi_card_play": "on"})
    act(s, "play AH")
    act(s, "stop")
    assert s.current_player == 3 and s.view(3)["direction"] == -1


def test_low_card_first_dealer_and_winner_deals_next():
    for seed in range(50):
        s = new_match("crazy-eights", "house", 3, seed)
        draws = [e for e in s.events if e.kind == "dealer_draw"]
        assert draws, "house draws cards for the first dealer"
        last = draws[-1].data["cards"]
        low = min(parse_card(c) % 13 for c in last.values())
        assert [int(k) for k, c in last.items() if parse_card(c) % 13 == low] == [s.view(0)["dealer"]]
    s = setup("house", 3, ["7H", "2C 3D", "KS"], "4C 9H", stock="5S 6S", dealer=0)
    act(s, "play 7H")
    assert s.view(0)["dealer"] == 0 and s.hand_number == 2  # the winner, seat 0, deals


def test_fixed_number_of_hands_and_extra_hands_for_a_tie():
    s = new_match("crazy-eights", "french", 2, 4)
    while not s.is_over:
        s.apply(s.legal_actions()[0])
    assert s.hand_number == 5 and len(s.hand_scores) == 5
    rules = make_rules("crazy-eights", "pagat", {"match_end": "hands", "match_hands": 1,
                                                 "tie_policy": "extra_hands"})
    s = new_match("crazy-eights", rules, 3, 1)
    s = arrange(s, [cards("7H"), cards("8C 8D"), cards("8S 8H")], cards("4C 9H"), cards("5S 6S"), 0)
    act(s, "play 7H")
    assert s.is_over and s.standings() == [1, 2, 2]  # a tie below first place needs no extra hand
    s = new_match("crazy-eights", make_rules("crazy-eights", "pagat", {
        "match_end": "hands", "match_hands": 1, "tie_policy": "extra_hands", "stock_empty": "pass"}), 3, 1)
    s = arrange(s, [cards("KC"), cards("KD"), cards("QS JS")], cards("4S 5H"), [], 0)
    for _ in range(3):
        act(s, "pass")
    assert list(s.scores) == [10, 10, 20] and not s.is_over and s.hand_number == 2

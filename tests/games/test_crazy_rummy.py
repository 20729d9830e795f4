"""Crazy Rummy: scripted positions for the deal, melds, lay-offs, exchanges, the one-card rule
and the final discard (spec Part A rules 6-18). Positions: see ``rummy_helpers``.
"""

from __future__ import annotations

from typing import Any

from rummy_helpers import HANDS, C, c, hand_of, match, names, play, position, refused, rules

from referee.games.crazy_rummy import actions as A
from referee.games.crazy_rummy.state import CrazyRummyState


# --- the deal and the first turn ------------------------------------------------------------------


def test_the_deal_gives_seven_cards_and_an_eighth_to_the_first_player() -> None:
    state = match(4, 3)
    view = state.view(0)
    first = (view["dealer"] + 1) % 4
    assert view["current_player"] == first == view["first_player"]
    assert view["hand_sizes"] == [8 if s == first else 7 for s in range(4)]
    assert view["stock_size"] == 52 - 29 and view["discard_pile"] == []
    assert view["wild_rank"] == 1 and view["deal_number"] == 1 and view["num_deals"] == 13
    assert view["phase"] == "table" and view["first_turn"]
    deal = state.events[0]
    assert deal.kind == "deal" and deal.seat == view["dealer"] and deal.data["wild_rank"] == 1


def test_two_players_get_ten_cards_each() -> None:
    state = CrazyRummyState(rules(players="2-6"), 2, 1)
    assert sorted(state.view(0)["hand_sizes"]) == [10, 11]


def test_the_first_turn_has_no_draw_and_no_exchange() -> None:
    state = match(3, 7)
    refused(state, "draw stock", "the first turn of a deal has no draw")
    assert all(a.kind not in (A.DRAW_STOCK, A.DRAW_DISCARD, A.EXCHANGE)
               for a in state.legal_actions())
    assert A.end_table() in state.legal_actions()
    first = state.current_player
    play(state, "end table")
    assert state.phase == "discard"
    state.apply(state.legal_actions()[0])
    assert state.current_player == (first + 1) % 3 and state.phase == "draw"
    assert state.view(0)["discard_pile"] == [state.history[-1][1].cards[0]]


def test_first_turn_meld_discard_only_skips_the_table_phase() -> None:
    state = match(3, 7, first_turn_meld="discard_only")
    assert state.phase == "discard"
    refused(state, "draw stock", "the first turn of a deal has no draw; discard one card")
    assert all(a.kind == A.DISCARD for a in state.legal_actions())


def test_the_dealer_plays_first_with_first_player_dealer() -> None:
    state = match(3, 7, first_player="dealer")
    view = state.view(0)
    assert view["current_player"] == view["dealer"]
    assert view["hand_sizes"][view["dealer"]] == 8


def test_no_meld_until_round_complete_holds_table_actions_for_one_round() -> None:
    state = match(3, 7, no_meld_until_round_complete=True)
    first = state.current_player
    assert state.phase == "discard"
    state.apply(state.legal_actions()[0])
    for _ in range(2):
        play(state, "draw stock")
        assert state.phase == "discard"
        state.apply(state.legal_actions()[0])
    assert state.current_player == first
    play(state, "draw stock")
    assert state.phase == "table"


def test_the_first_player_may_go_out_on_the_first_turn() -> None:
    state = position(["4H 5H 6H 7H 9C 9D 9S KS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"],
                     turn=1)
    assert state.phase == "table"
    play(state, "meld run 4H 5H 6H 7H", "meld set 9C 9D 9S", "end table", "discard KS")
    assert [e.kind for e in state.events][-3:] == ["go_out", "deal_end", "deal"]


# --- melds ---------------------------------------------------------------------------------------


def test_a_run_needs_every_rank_and_wilds_carry_their_meaning() -> None:
    state = position(HANDS, stock_top=C("9S"))
    play(state, "draw stock")
    refused(state, "meld run 4H 5H 7H",
            "illegal: 4H 5H 7H is not a run: 6H is missing and no wild stands for it")
    refused(state, "meld run 4H 5H 2C*=5H 7H", "two cards stand for 5H")
    refused(state, "meld run 4H 5H 9C", "mixes clubs and hearts")
    refused(state, "meld run 4H 5H 9C*=6H", "9C is not wild")
    play(state, "meld run 7H 4H 2C*=6H 5H")
    table = state.view(1)["melds"]
    assert table == [{"index": 0, "owner": 0, "kind": "run", "cards": C("4H 5H 2C 7H"),
                      "meanings": C("4H 5H 6H 7H")}]
    assert state.view(1)["opened"] == [True, False, False]


def test_a_set_is_three_or_four_cards_of_one_rank() -> None:
    state = position(HANDS, stock_top=C("9S"))
    play(state, "draw stock")
    refused(state, "meld set 9C 9D KS", "KS is not a 9 and is not wild")
    refused(state, "meld set 9C 9D 9H", "you do not hold 9H")
    refused(state, "meld set 9C 9D", "a set holds 3 to 4 cards")
    refused(state, "meld set 9C 9D 9S 2C*=9 KS*=9", "a set holds 3 to 4 cards")
    refused(state, "meld set 9C 9D 2C*=8", "9C 9D 2C is not a set of 9s")
    play(state, "meld set 9C 9D 9S 2C*=9")
    assert state.view(0)["melds"][0]["meanings"] == [9, 9, 9, 9]
    refused(state, "lay off 2C*=9 on set 0", "you do not hold 2C")


def test_the_ace_is_low_unless_ace_in_runs_says_otherwise() -> None:
    hands = ["QH KH AH 2H 3H 9C JC", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    state = position(hands, stock_top=C("9S"))
    play(state, "draw stock")
    refused(state, "meld run QH KH AH", "the Ace is low only")
    play(state, "meld run AH 2H 3H")  # 2H is wild and stands for itself
    high = position(hands, ruleset=rules(ace_in_runs="high_or_low"), stock_top=C("9S"))
    play(high, "draw stock")
    refused(high, "meld run KH AH 2H", "not a run")
    play(high, "meld run QH KH AH")
    assert high.melds[0].meanings == tuple(C("QH KH AH"))


def test_all_wild_melds_follow_their_switch() -> None:
    hands = ["2C 2D 2H 2S 9C JC KD", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    state = position(hands, stock_top=C("9S"))
    play(state, "draw stock", "meld run 2C*=5S 2D*=6S 2H*=7S")
    assert state.melds[0].meanings == tuple(C("5S 6S 7S"))
    strict = position(hands, ruleset=rules(allow_all_wild_melds=False), stock_top=C("9S"))
    play(strict, "draw stock")
    refused(strict, "meld set 2C*=9 2D*=9 2H*=9", "all-wild melds are off")
    play(strict, "meld set 2C 2D 2H")  # the wild rank standing for itself is a natural set


def test_two_packs_allow_repeated_naturals_in_a_set() -> None:
    hands = ["7H 7H 7C 7D 7S KD QD", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    state = position(hands, ruleset=rules(decks=2), stock_top=C("9S"))
    play(state, "draw stock", "meld set 7H 7H 7C 7D 7S")
    small = position(hands, ruleset=rules(decks=2, double_deck_set_max=4), stock_top=C("9S"))
    play(small, "draw stock")
    refused(small, "meld set 7H 7H 7C 7D 7S", "a set holds 3 to 4 cards")
    play(small, "meld set 7H 7H 7C")
    refused(small, "lay off 7H on set 0", "you do not hold 7H")


# --- laying off and exchanging ---------------------------------------------------------------------


def test_laying_off_needs_an_opening_meld_of_ones_own() -> None:
    hands = ["8H 9H 2C 9C 9D 9S KS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC"]
    state = position(hands, melds=("run 5H 6H 7H",), owners=(1,), stock_top=C("QC"))
    play(state, "draw stock")
    refused(state, "lay off 8H on run 0",
            "illegal: you have not opened yet: lay down a meld of your own before laying off")
    assert not any(a.kind == A.LAY_OFF_RUN for a in state.legal_actions())
    play(state, "meld set 9C 9D 9S")
    refused(state, "lay off 8H on set 0", "meld 0 is a run")
    refused(state, "lay off 8H on run 3", "there is no meld 3")
    refused(state, "lay off 9H on run 0", "9H does not extend the run 5H 6H 7H: it can only take 4H or 8H")
    assert "lay off 8H on run 0" in names(state)
    assert state.parse_action("lay off 8H on meld 0") == state.parse_action("lay off 8H on run 0")
    play(state, "lay off 8H on run 0", "lay off 9H on run 0", "lay off 2C*=4H on run 0")
    assert state.melds[0].meanings == tuple(C("4H 5H 6H 7H 8H 9H"))
    assert state.melds[0].owner == 1


def test_a_wild_in_a_run_is_taken_only_by_the_exact_card() -> None:
    hands = ["7H 8H 9H KC KD KH 4D", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS JC"]
    melds = ("run 5H 6H 2C*=7H", "set 9C 9D 2S*=9")
    state = position(hands, melds=melds, owners=(1, 2), stock_top=C("QC"))
    play(state, "draw stock")
    refused(state, "exchange 7H for 2C on meld 0", "you have not opened yet", "exchanging a wild")
    play(state, "meld set KC KD KH")
    refused(state, "exchange 8H for 2C on meld 0", "no wild in the run 5H 6H 7H stands for 8H")
    refused(state, "exchange 7H for 2S on meld 0", "the wild standing for 7H is 2C, not 2S")
    assert "exchange 7H for 2C on meld 0" in names(state)
    play(state, "exchange 7H for 2C on meld 0")
    assert state.melds[0].cards == tuple(C("5H 6H 7H"))
    assert c("2C") in hand_of(state, 0) and c("7H") not in hand_of(state, 0)
    play(state, "lay off 2C*=4H on run 0")  # the freed wild takes a new meaning
    assert state.melds[0].meanings == tuple(C("4H 5H 6H 7H"))
    assert [e.kind for e in state.events][-2:] == ["exchange", "lay_off"]


def test_a_wild_in_a_set_is_taken_by_a_card_of_any_missing_suit() -> None:
    hands = ["9H 9S KC KD KH 4D 5D", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS JC"]
    state = position(hands, melds=("set 9C 9D 2S*=9",), owners=(2,), stock_top=C("QC"))
    play(state, "draw stock", "meld set KC KD KH")
    assert {"exchange 9H for 2S on meld 0", "exchange 9S for 2S on meld 0"} <= set(names(state))
    refused(state, "exchange 4D for 2S on meld 0", "4D is not a 9")
    play(state, "exchange 9S for 2S on meld 0")
    assert state.melds[0].cards == tuple(C("9C 9D 9S"))
    refused(state, "exchange 9H for 2S on meld 0", "holds no 2S")


def test_two_packs_let_an_exchange_bring_a_second_natural_of_a_suit() -> None:
    hands = ["9C 9S KC KD KH 4D 5D", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS JC"]
    state = position(hands, ruleset=rules(decks=2), melds=("set 9C 9D 2S*=9",), owners=(2,),
                     stock_top=C("QC"))
    play(state, "draw stock", "meld set KC KD KH", "exchange 9C for 2S on meld 0")
    assert state.melds[0].cards == tuple(C("9C 9C 9D"))


# --- the one-card rule and the final discard ------------------------------------------------------------


def one_card_position(**kw: Any) -> CrazyRummyState:
    hands = ["KD", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    return position(hands, melds=("run 5H 6H 7H",), owners=(0,), stock_top=C("8H"),
                    discard=C("3D"), **kw)


def test_one_card_rule_draw_from_stock_and_lay_off_once_to_go_out() -> None:
    state = one_card_position()
    assert state.view(1)["one_card_turn"]
    assert names(state) == ["draw stock"]
    refused(state, "draw discard", "the one-card rule says you must draw from the stock")
    play(state, "draw stock")
    assert state.view(0)["drawn_card"] == c("8H") and state.view(1)["drawn_card"] is None
    assert names(state) == ["lay off 8H on run 0", "end table"]
    play(state, "lay off 8H on run 0")
    assert state.phase == "discard" and names(state) == ["discard KD"]
    play(state, "discard KD")
    assert state.events[-3].kind == "go_out" and state.events[-2].data["went_out"] == 0


def test_one_card_rule_keeps_the_drawn_card_when_not_going_out() -> None:
    state = one_card_position()
    play(state, "draw stock", "end table")
    refused(state, "discard 8H", "you keep the card you drew (8H) and discard the card you held (KD)")
    play(state, "discard KD")
    assert hand_of(state, 0) == [c("8H")]


def test_one_card_turn_of_a_player_who_has_not_opened_goes_straight_to_the_discard() -> None:
    state = one_card_position(opened=[False, False, False])
    play(state, "draw stock")
    assert state.phase == "discard" and names(state) == ["discard KD"]


def test_without_the_one_card_rule_the_turn_is_ordinary() -> None:
    state = one_card_position(ruleset=rules(one_card_rule=False))
    assert not state.view(0)["one_card_turn"]
    play(state, "draw discard", "end table", "discard KD")
    assert hand_of(state, 0) == [c("3D")]


def test_a_final_discard_is_always_required() -> None:
    state = position(["9C 9D", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"],
                     stock_top=C("9S"))
    play(state, "draw stock")
    refused(state, "meld set 9C 9D 9S",
            "illegal: a final discard is always required: this meld would leave your hand empty")
    assert not any(a.kind == A.MELD_SET for a in state.legal_actions())
    lay = position(["8H 9H", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"],
                   melds=("run 5H 6H 7H",), owners=(0,), stock_top=C("10H"))
    play(lay, "draw stock", "lay off 8H on run 0", "lay off 9H on run 0")
    refused(lay, "lay off 10H on run 0", "this lay-off would leave your hand empty")
    play(lay, "end table", "discard 10H")
    assert lay.events[-3].kind == "go_out"

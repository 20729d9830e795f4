"""Crazy Rummy: scripted positions that walk through each rule of spec Part A.

Positions are built with :meth:`CrazyRummyState.from_position` (hands, melds and piles given
explicitly; the rest of the pack forms the stock). Unless a test says otherwise the position is
deal 2, so the 2s are wild, and it is seat 0's turn, about to draw.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from referee.games import IllegalActionError, make_rules
from referee.games.crazy_rummy import actions as A
from referee.games.crazy_rummy.rules import CrazyRummyRules
from referee.games.crazy_rummy.state import CrazyRummyState
from talon_sdk.cards import parse_card, parse_cards
from talon_sdk.melds import RUN, SET, Meld


def rules(**overrides: Any) -> CrazyRummyRules:
    return make_rules("crazy-rummy", "standard", overrides)  # type: ignore[return-value]


def match(players: int, seed: int, **overrides: Any) -> CrazyRummyState:
    """A new match (the state class itself, so its typed helpers are visible)."""
    return CrazyRummyState(rules(**overrides), players, seed)


def meld(owner: int, text: str) -> Meld:
    """A table meld from text such as ``"run 5H 6H 2C*=7H"`` or ``"set 9C 9D 2S*=9"``."""
    action = A.parse_action("meld " + text)
    return Meld(SET if action.kind == A.MELD_SET else RUN, action.cards, action.meanings, owner)


def position(hands: list[str], *, ruleset: CrazyRummyRules | None = None, melds: tuple[str, ...] = (),
             owners: tuple[int, ...] = (), deal_number: int = 2, **kw: Any) -> CrazyRummyState:
    table = [meld(owner, text) for owner, text in zip(owners, melds)]
    return CrazyRummyState.from_position(
        ruleset or rules(), len(hands), [parse_cards(h) for h in hands], melds=table,
        deal_number=deal_number, **kw)


def play(state: CrazyRummyState, *texts: str) -> None:
    for text in texts:
        state.apply(state.parse_action(text))


def snapshot(state: CrazyRummyState) -> Any:
    return ([state.view(s) for s in range(state.num_players)], state.card_count(),
            list(state.history), list(state._stock), [e.to_json() for e in state.events])


def refused(state: CrazyRummyState, text: str, *fragments: str) -> str:
    """Play ``text``, expect it refused with every fragment in the reason, state untouched."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as err:
        state.apply(state.parse_action(text))
    reason = str(err.value)
    for fragment in fragments:
        assert fragment in reason
    assert snapshot(state) == before
    return reason


def names(state: CrazyRummyState) -> list[str]:
    return [state.action_name(a) for a in state.legal_actions()]


def hand_of(state: CrazyRummyState, seat: int) -> list[int]:
    return list(state.view(seat)["hand"])


C = parse_cards
c = parse_card

# Three hands used by many tests: seat 0 can build a run and a set with the wild 2C.
HANDS = ["4H 5H 7H 2C 9C 9D KS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]


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


# --- the end of a deal ---------------------------------------------------------------------------------


def test_going_out_scores_the_other_hands_and_deals_again() -> None:
    state = position(HANDS, stock_top=C("9S"))
    play(state, "draw stock", "meld run 4H 5H 2C*=6H 7H", "meld set 9C 9D 9S", "end table",
         "discard KS")
    # seat 1: 3+4+5+6+8+10+10 (J); seat 2: 3+4+8+10+10 (Q)+10 (K)+10 (J)
    assert state.hand_scores == [[0, 46, 55]] and list(state.scores) == [0, 46, 55]
    end = [e for e in state.events if e.kind == "deal_end"][0]
    assert end.data == {"deal_number": 2, "reason": "went_out", "went_out": 0,
                        "deal_scores": [0, 46, 55], "scores": [0, 46, 55]}
    view = state.view(0)
    assert view["deal_number"] == 3 and view["wild_rank"] == 3
    assert view["dealer"] == 0 and view["current_player"] == 1  # the deal passes clockwise
    assert view["hand_sizes"] == [7, 8, 7] and view["melds"] == [] and view["opened"] == [False] * 3
    assert state.card_count() == 52


def test_the_deal_ends_when_the_last_stock_card_is_drawn_and_discarded() -> None:
    state = position(HANDS, stock_top=C("9S"), stock_size=1, discard=C("3D"))
    play(state, "draw stock")
    assert state.view(0)["stock_size"] == 0
    play(state, "end table", "discard KS")
    kinds = [e.kind for e in state.events]
    assert kinds[-4:] == ["discard", "stock_exhausted", "deal_end", "deal"]
    # seat 0 keeps 4H 5H 7H 2C 9C 9D 9S: 4+5+7+25+9+9+9
    assert state.hand_scores == [[68, 46, 55]]


def test_a_reshuffle_makes_a_new_stock_from_the_discard_pile_but_its_top_card() -> None:
    state = position(HANDS, ruleset=rules(stock_exhausted="reshuffle"), stock_top=C("9S"),
                     stock_size=1, discard=C("3D 4D"))
    pile = state.view(0)["discard_pile"]
    play(state, "draw stock", "end table", "discard KS")
    view = state.view(1)
    assert view["discard_pile"] == [c("KS")] and view["stock_size"] == len(pile)
    assert sorted(state._stock) == sorted(pile)
    assert state.events[-1].data == {"resolution": "reshuffle", "stock_size": len(pile)}
    assert view["current_player"] == 1 and view["phase"] == "draw" and view["turn"] == 3


def test_turn_over_puts_the_oldest_discard_on_top_of_the_stock() -> None:
    state = position(HANDS, ruleset=rules(stock_exhausted="turn_over"), stock_top=C("9S"),
                     stock_size=1, discard=C("3D 4D"))
    pile = state.view(0)["discard_pile"]
    play(state, "draw stock", "end table", "discard KS")
    assert state._stock == pile[::-1]
    play(state, "draw stock")
    assert state.view(1)["drawn_card"] == pile[0]


def test_a_reshuffle_with_an_empty_pile_ends_the_deal() -> None:
    rest = [card for card in range(52) if card not in C("9S KS")]
    hands = [rest[:16] + [c("KS")], rest[16:33], rest[33:]]
    state = CrazyRummyState.from_position(rules(stock_exhausted="reshuffle"), 3, hands,
                                          stock_top=C("9S"), deal_number=2)
    assert state.view(0)["stock_size"] == 1 and state.view(0)["discard_pile"] == []
    play(state, "draw stock", "end table", "discard KS")
    ends = [e for e in state.events if e.kind == "deal_end"]
    assert ends and ends[0].data["reason"] == "stock_exhausted"


def play_quiet_turns(state: CrazyRummyState, turns: int) -> None:
    """Turns with no table action: draw from the stock (not on turn 1), end table, discard."""
    for _ in range(turns):
        if state.phase == "draw":
            play(state, "draw stock")
        if state.phase == "table":
            play(state, "end table")
        state.apply(state.legal_actions()[-1])


def test_the_stall_guard_scores_the_deal_after_max_turns() -> None:
    state = match(3, 11, max_turns_per_deal=3)
    play_quiet_turns(state, 3)
    ended = [e for e in state.events if e.kind in ("stalled", "deal_end")]
    assert ended[0].data == {"turns": 3, "resolution": "score"}
    assert ended[1].data["reason"] == "stalled" and ended[1].data["went_out"] is None
    assert state.hand_number == 2
    assert min(state.hand_scores[0]) > 0  # nobody went out: every hand counts


def test_a_void_stall_scores_nothing_but_counts_as_a_deal() -> None:
    state = match(3, 11, max_turns_per_deal=3, stall_resolution="void")
    play_quiet_turns(state, 3)
    assert state.hand_scores == [[0, 0, 0]] and state.hand_number == 2
    assert state.view(0)["wild_rank"] == 2


# --- scoring and the end of the match ---------------------------------------------------------------------


def test_card_values_follow_the_switches() -> None:
    standard = rules()
    values = [standard.card_value(c(name), wild_rank=7) for name in "AC 2C 10C JC QC KC 7C".split()]
    assert values == [1, 2, 10, 10, 10, 10, 25]
    assert rules(court_values="by_rank", ace_value=10, wild_value=15).card_value(c("QS"), 7) == 12
    assert rules(ace_value=10).card_value(c("AS"), 7) == 10
    assert rules(wild_value=20).card_value(c("AS"), 1) == 20
    beanie = rules(value_scheme="beanie")
    assert [beanie.card_value(c(n), 2) for n in "AC 8C 9C KC 2C".split()] == [5, 5, 10, 10, 25]


def test_doubled_deals_and_the_go_out_bonus() -> None:
    ruleset = rules(double_when_wild_in="7_and_K", go_out_bonus=-15)
    hands = ["4H 5H 6H 9C 9D 9S KS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    state = position(hands, ruleset=ruleset, deal_number=7, stock_top=C("7D"))
    play(state, "draw stock", "meld run 4H 5H 6H", "meld set 9C 9D 9S", "lay off 7D*=7H on run 0",
         "end table", "discard KS")
    assert state.hand_scores == [[-30, 92, 110]]


def test_the_match_ends_after_deal_thirteen_with_shared_places() -> None:
    hands = ["4H 5H 6H 9C 9D 9S", "AC 4C", "3S 10S"]
    state = position(hands, deal_number=13, scores=[100, 95, 87], stock_top=C("7D"))
    assert state.view(0)["wild_rank"] == 13
    play(state, "draw stock", "meld run 4H 5H 6H", "meld set 9C 9D 9S", "end table")
    assert state.view(0)["hand"] == [c("7D")]
    play(state, "discard 7D")
    assert state.is_over and state.current_player == -1 and state.legal_actions() == []
    assert list(state.scores) == [100, 100, 100]
    assert state.standings() == [1, 1, 1]
    assert state.events[-1].kind == "match_end"
    assert state.events[-1].data == {"scores": [100, 100, 100], "standings": [1, 1, 1]}
    assert state.view(2)["phase"] == "over"
    refused(state, "draw stock", "the match is over")


def test_the_deals_won_tie_policy_breaks_ties() -> None:
    hands = ["4H 5H 6H 9C 9D 9S", "AC 4C", "3S 10S"]
    state = position(hands, ruleset=rules(tie_policy="deals_won_then_worst_deal"),
                     deal_number=13, scores=[100, 95, 87], stock_top=C("7D"))
    play(state, "draw stock", "meld run 4H 5H 6H", "meld set 9C 9D 9S", "end table", "discard 7D")
    assert list(state.scores) == [100, 100, 100]
    assert state.standings() == [1, 2, 3]  # seat 0 went out; seat 1's worst deal is lower


def test_a_full_match_plays_thirteen_deals_with_rotating_dealers() -> None:
    state = match(3, 21)
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[len(state.history) * 7919 % len(legal)])
    deals = [e for e in state.events if e.kind == "deal"]
    assert [d.data["wild_rank"] for d in deals] == list(range(1, 14))
    assert all((b.seat - a.seat) % 3 == 1 for a, b in zip(deals, deals[1:]))
    ends = [e for e in state.events if e.kind == "deal_end"]
    assert len(ends) == 13 == len(state.hand_scores)
    assert [sum(d[s] for d in state.hand_scores) for s in range(3)] == list(state.scores)
    assert ends[-1].data["scores"] == list(state.scores)
    assert {match(3, s).view(0)["dealer"] for s in range(12)} == {0, 1, 2}


# --- the switches about taking and discarding ---------------------------------------------------------


def test_may_discard_card_just_taken_off() -> None:
    hands = ["4H 5H 7H 9C 9D 9S KS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    state = position(hands, ruleset=rules(may_discard_card_just_taken=False), discard=C("QD"))
    play(state, "draw discard", "end table")
    assert "discard QD" not in names(state)
    refused(state, "discard QD", "you may not discard QD, the card you just took")
    allowed = position(hands, discard=C("QD"))
    play(allowed, "draw discard", "end table", "discard QD")


def test_may_discard_card_just_taken_off_refuses_a_table_action_leaving_only_that_card() -> None:
    state = position(["8H", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"],
                     ruleset=rules(may_discard_card_just_taken=False, one_card_rule=False),
                     melds=("run 5H 6H 7H",), owners=(0,), discard=C("QD"))
    play(state, "draw discard")
    refused(state, "lay off 8H on run 0", "which you may not discard")


def test_discard_take_must_meld() -> None:
    ruleset = rules(discard_take_must_meld=True)
    hands = ["4H 5H 7H 9C 9D KS QS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QC KC JH"]
    state = position(hands, ruleset=ruleset, discard=C("9S"))
    assert names(state) == ["draw stock", "draw discard"]
    play(state, "draw discard")
    assert "end table" not in names(state)
    refused(state, "end table", "9S, taken from the discard pile, must go on the table first")
    play(state, "meld set 9C 9D 9S", "end table")
    blocked = position(hands, ruleset=ruleset, discard=C("2D 3D"))
    assert names(blocked) == ["draw stock"]
    refused(blocked, "draw discard", "only if you can meld it or lay it off at once")


def test_reclaimed_wild_must_be_used() -> None:
    ruleset = rules(reclaimed_wild_must_be_used=True)
    hands = ["7H 8D KC KD KH 4D", "3C 4C 5C 6C 9S 10D JD", "3S 4S 8S 10S QS JC"]
    state = position(hands, ruleset=ruleset, melds=("run 5H 6H 2C*=7H",), owners=(1,),
                     stock_top=C("QC"))
    play(state, "draw stock", "meld set KC KD KH", "exchange 7H for 2C on meld 0")
    assert state.view(1)["must_place"] == c("2C")
    refused(state, "end table", "2C, the wild you took by exchange, must go back on the table")
    assert all(a.cards[0] == c("2C") for a in state.legal_actions())
    play(state, "lay off 2C*=8H on run 0", "end table")


def test_reclaimed_wild_must_be_used_refuses_an_exchange_with_nowhere_to_go() -> None:
    ruleset = rules(reclaimed_wild_must_be_used=True)
    full_run = "run AH 2H 3H 4H 5H 6H 3C*=7H 8H 9H 10H JH QH KH"
    hands = ["7H 5C 9D", "4C 5S 6C 8D 10D JD", "4S 8S 10S JC"]
    state = position(hands, ruleset=ruleset, deal_number=3, stock_top=C("KC"),
                     melds=(full_run, "set QS QD QC 3D*=Q"), owners=(1, 0))
    play(state, "draw stock")
    refused(state, "exchange 7H for 3C on meld 0", "no meld on the table has room for it")
    assert not any(a.kind == A.EXCHANGE for a in state.legal_actions())


# --- wrong phases and malformed actions -------------------------------------------------------------------


def test_actions_out_of_phase_are_refused_with_the_phase_named() -> None:
    state = position(HANDS, stock_top=C("9S"))
    refused(state, "discard KS", "draw first")
    play(state, "draw stock")
    refused(state, "draw discard", "you have already drawn this turn")
    refused(state, "discard KS", "end the table phase (end table) before you discard")
    play(state, "end table")
    refused(state, "meld set 9C 9D 9S", "discard one card")
    with pytest.raises(IllegalActionError, match="not a Crazy Rummy action"):
        state.apply("discard KS")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="one meaning per card"):
        state.apply(A.RummyAction(A.MELD_SET, (1, 2, 3), (1,)))
    with pytest.raises(IllegalActionError, match="card id outside"):
        state.apply(A.RummyAction(A.DISCARD, (52,)))


# --- views and events ------------------------------------------------------------------------------


VIEW_KEYS = {
    "game", "preset", "rules", "seat", "num_players", "deal_number", "num_deals", "dealer",
    "first_player", "current_player", "phase", "wild_rank", "hand", "discard_pile", "stock_size",
    "hand_sizes", "opened", "melds", "scores", "deal_scores", "deals_won", "turn", "max_turns",
    "one_card_turn", "drawn_card", "must_place", "first_turn",
}


def test_the_view_holds_public_facts_and_the_own_hand_only() -> None:
    state = position(HANDS, stock_top=C("9S"), discard=C("3D"))
    play(state, "draw stock")
    view = state.view(1)
    assert set(view) == VIEW_KEYS
    json.dumps(view)
    assert view["game"] == "crazy-rummy" and view["hand"] == sorted(C(HANDS[1]))
    assert view["hand_sizes"] == [8, 7, 7] and view["drawn_card"] is None
    assert state.view(0)["drawn_card"] == c("9S")
    assert view["discard_pile"] == [c("3D")] and view["phase"] == "table"
    twin = state.clone()
    twin.redeal_hidden(1, random.Random(5))
    assert twin.view(1) == view and twin.card_count() == 52
    assert [twin.hand(s) for s in (0, 2)] != [state.hand(s) for s in (0, 2)]
    assert twin.view(0)["drawn_card"] in twin.hand(0)


def test_draw_events_show_the_card_only_when_it_comes_from_the_discard_pile() -> None:
    state = position(HANDS, stock_top=C("9S"), discard=C("3D"))
    play(state, "draw stock", "end table", "discard KS", "draw discard")
    draws = [e.to_json() for e in state.events if e.kind == "draw"]
    assert draws == [{"kind": "draw", "seat": 0, "source": "stock"},
                     {"kind": "draw", "seat": 1, "source": "discard", "card": c("KS")}]


def test_an_illegal_action_never_changes_the_state() -> None:
    state = position(HANDS, stock_top=C("9S"))
    play(state, "draw stock")
    before = snapshot(state)
    for text in ("meld run 4H 5H 7H", "lay off 9C on set 0", "exchange 9C for 2C on meld 0",
                 "meld set 9C 9D KS", "discard 9C", "draw stock"):
        with pytest.raises(IllegalActionError):
            state.apply(state.parse_action(text))
    assert snapshot(state) == before


def test_clone_is_independent() -> None:
    state = position(HANDS, stock_top=C("9S"))
    twin = state.clone()
    play(twin, "draw stock", "meld set 9C 9D 9S")
    assert state.phase == "draw" and state.melds == [] and len(state.hand(0)) == 7
    assert twin.card_count() == state.card_count() == 52

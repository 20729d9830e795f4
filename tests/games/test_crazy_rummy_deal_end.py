"""Crazy Rummy: scripted positions for the end of a deal, scoring, the end of the match, the
switches about taking and discarding, wrong phases, views and events (spec Part A rules 14-27).
"""

from __future__ import annotations

import json
import random

import pytest
from rummy_helpers import HANDS, C, c, match, names, play, position, refused, rules, snapshot

from referee.games import IllegalActionError
from referee.games.crazy_rummy import actions as A
from referee.games.crazy_rummy.actions import RummyAction
from referee.games.crazy_rummy.state import CrazyRummyState


# --- the end of a deal ---------------------------------------------------------------------------------


def test_going_out_scores_the_other_hands_and_deals_again() -> None:
    state = position(HANDS, stock_top=C("9S"))
    play(state, "draw stock", "meld run 4H 5H 2C*=6H 7H", "meld set 9C 9D 9S", "end table",
         "discard KS")
    # seat 1: 3+4+5+6+8+10+10 (J); seat 2: 3+4+8+10+10 (Q)+10 (K)+10 (J)
    assert state.hand_scores == [[0, 46, 55]] and list(state.scores) == [0, 46, 55]
    end = [e for e in state.events if e.kind == "deal_end"][0]
    assert end.data == {"deal_number": 2, "reason": "went_out", "went_out": 0, "out_seats": [0],
                        "deal_scores": [0, 46, 55], "scores": [0, 46, 55]}
    view = state.view(0)
    assert view["deal_number"] == 3 and view["wild_rank"] == 3
    assert view["dealer"] == 0 and view["current_player"] == 1  # the deal passes clockwise
    assert view["hand_sizes"] == [7, 8, 7] and view["melds"] == [] and view["opened"] == [False] * 3
    assert state.card_count() == 52


def test_full_turn_lets_the_rest_of_the_first_round_play_after_a_first_turn_go_out() -> None:
    hands = ["4H 5H 6H 7H 9C 9D 9S KS", "3C 4C 5C 6C 8D 10D JD", "3S 4S 8S 10S QS KC JH"]
    state = position(hands, ruleset=rules(first_turn_go_out="full_turn"), turn=1,
                     stock_top=C("QD AD"))
    play(state, "meld run 4H 5H 6H 7H", "meld set 9C 9D 9S", "end table", "discard KS")
    assert state.current_player == 1 and state.phase == "draw" and state.hand_number == 2
    assert state.view(1)["hand_sizes"] == [0, 7, 7]
    play(state, "draw stock", "end table", "discard QD", "draw stock", "end table", "discard AD")
    end = [e for e in state.events if e.kind == "deal_end"][0]
    assert end.data["reason"] == "went_out" and end.data["out_seats"] == [0]
    assert end.data["deal_scores"] == [0, 46, 55] and state.hand_number == 3


def test_full_turn_scores_every_player_who_goes_out_in_the_first_round() -> None:
    hands = ["4H 5H 6H 7H 9C 9D 9S KS", "3C 4C 5C 6C 8D 8H 8S", "3S 4S 10S QS KC JH 7S"]
    ruleset = rules(first_turn_go_out="full_turn", go_out_bonus=-15)
    state = position(hands, ruleset=ruleset, turn=1, stock_top=C("QD AD"))
    play(state, "meld run 4H 5H 6H 7H", "meld set 9C 9D 9S", "end table", "discard KS")
    play(state, "draw stock", "meld run 3C 4C 5C 6C", "meld set 8D 8H 8S", "end table",
         "discard QD")
    assert state.hand_number == 2 and state.current_player == 2
    play(state, "draw stock", "end table", "discard AD")
    assert state.hand_scores == [[-15, -15, 3 + 4 + 10 + 10 + 10 + 10 + 7]]
    assert state.view(0)["deals_won"] == [1, 1, 0]


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


def test_reclaimed_wild_may_go_into_a_new_meld_later_in_the_turn() -> None:
    """The variant asks for the wild back on the table *in the same turn* (spec A.4): other
    table actions may come first, and a new meld from the hand is as good as a lay-off."""
    ruleset = rules(reclaimed_wild_must_be_used=True)
    # 2s are wild; every meld on the table is full, so the wild can only go into a new meld
    hands = ["9S 8C 8D KH QH", "3C 4C 6D 7D", "3S 4S 8S 10S"]
    state = position(hands, ruleset=ruleset, melds=("set 9C 9D 9H 2C*=9", "set 5C 5D 5H 5S"),
                     owners=(1, 0), stock_top=C("JC"))
    play(state, "draw stock", "exchange 9S for 2C on meld 0")
    assert state.view(0)["must_place"] == c("2C")
    assert RummyAction(A.MELD_SET, (c("8C"), c("8D"), c("2C")), (8, 8, 8)) in state.legal_actions()
    refused(state, "end table", "2C, the wild you took by exchange, must go back on the table this turn")
    play(state, "meld set 8C 8D 2C*=8", "end table", "discard KH")
    # other melds first, the wild last
    hands = ["9S 3H 4H 5H KH QH", "3C 4C 6D 7D", "3S 4S 10S JS"]
    state = position(hands, ruleset=ruleset, melds=("set 9C 9D 9H 2C*=9", "run 6S 7S 8S"), owners=(1, 0),
                     stock_top=C("JC"))
    play(state, "draw stock", "exchange 9S for 2C on meld 0", "meld run 3H 4H 5H")
    assert state.view(0)["must_place"] == c("2C")
    play(state, "lay off 2C*=6H on run 2", "end table", "discard KH")


def test_reclaimed_wild_refuses_an_action_that_would_strand_it() -> None:
    ruleset = rules(reclaimed_wild_must_be_used=True)
    hands = ["QH 9S 5D", "4C 5S 6C 8D 10D JD", "4S 8S 10S JC"]  # 3s are wild in deal 3
    state = position(hands, ruleset=ruleset, deal_number=3, stock_top=C("KC"),
                     melds=("set QS QD QC 3D*=Q", "set 9C 9D 9H"), owners=(1, 0))
    play(state, "draw stock", "exchange QH for 3D on meld 0")  # the set of 9s has room for the wild
    # filling that room with 9S would leave 3D nowhere to go (5D KC 3D make no meld)
    refused(state, "lay off 9S on set 1", "must go back on the table this turn",
            "after this action it could not: no meld on the table has room for it")
    assert all(c("3D") in a.cards for a in state.legal_actions())
    play(state, "lay off 3D*=9 on set 1", "end table", "discard KC")


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
    assert not state.is_legal(A.discard(c("9C")))
    assert state.is_legal(state.parse_action("meld set 9C 9D 9S"))
    assert snapshot(state) == before


def test_clone_is_independent() -> None:
    state = position(HANDS, stock_top=C("9S"))
    twin = state.clone()
    play(twin, "draw stock", "meld set 9C 9D 9S")
    assert state.phase == "draw" and state.melds == [] and len(state.hand(0)) == 7
    assert twin.card_count() == state.card_count() == 52

"""Crazy Rummy actions: the tuple layout, text and JSON forms, and their errors."""

from __future__ import annotations

import json

import pytest

from referee.games import IllegalActionError
from referee.games.crazy_rummy import actions as A
from talon_sdk.cards import parse_card, parse_cards

c = parse_card
C = parse_cards


@pytest.mark.parametrize("text,action", [
    ("draw stock", A.RummyAction(A.DRAW_STOCK)),
    ("draw discard", A.RummyAction(A.DRAW_DISCARD)),
    ("end table", A.RummyAction(A.END_TABLE)),
    ("discard 10S", A.discard(c("10S"))),
    ("meld run 5H 6H 2C*=7H", A.meld_run(C("5H 6H 2C"), C("5H 6H 7H"))),
    ("meld set 7C 7D 2H*=7", A.meld_set(C("7C 7D 2H"), (7, 7, 7))),
    ("lay off 8H on run 2", A.lay_off_run(c("8H"), c("8H"), 2)),
    ("lay off 2C*=9H on run 2", A.lay_off_run(c("2C"), c("9H"), 2)),
    ("lay off 7S on set 0", A.lay_off_set(c("7S"), 7, 0)),
    ("lay off 2C*=K on set 11", A.lay_off_set(c("2C"), 13, 11)),
    ("exchange 7H for 2C on meld 3", A.exchange(c("7H"), c("2C"), 3)),
])
def test_text_forms_round_trip(text: str, action: A.RummyAction) -> None:
    assert A.parse_action(text) == action
    assert A.action_name(action) == text
    assert A.parse_action(text.upper().replace("ON", "on")) == action
    data = json.loads(json.dumps(A.action_to_json(action)))
    assert A.action_from_json(data) == action


def test_a_wild_standing_for_itself_is_marked_when_the_wild_rank_is_known() -> None:
    action = A.parse_action("meld run 5H 6H 7H*=7H")
    assert action == A.parse_action("meld run 5H 6H 7H")
    assert A.action_name(action, wild_rank=7) == "meld run 5H 6H 7H*=7H"
    assert A.action_name(action) == "meld run 5H 6H 7H"
    assert A.action_name(A.meld_set(C("7C 7D 7H"), (7, 7, 7)), wild_rank=7) == \
        "meld set 7C*=7 7D*=7 7H*=7"


def test_a_lay_off_on_meld_n_is_read_against_the_table() -> None:
    assert A.parse_action("lay off 8H on meld 2", [0, 0, 1]) == A.lay_off_run(c("8H"), c("8H"), 2)
    assert A.parse_action("lay off 7S on meld 0", [0, 0, 1]) == A.lay_off_set(c("7S"), 7, 0)
    with pytest.raises(A.ActionFormatError, match="write 'on set N' or 'on run N'"):
        A.parse_action("lay off 7S on meld 3", [0, 0, 1])


def test_the_json_form_uses_ids_and_reads_names() -> None:
    action = A.meld_set(C("7C 7D 2H"), (7, 7, 7))
    assert A.action_to_json(action) == {"kind": "meld_set", "cards": C("7C 7D 2H"),
                                        "meanings": [7, 7, 7], "target": -1}
    assert A.action_from_json({"kind": "meld_set", "cards": ["7C", "7D", "2H"],
                               "meanings": ["7", "7", "7"]}) == action
    assert A.action_from_json({"kind": "discard", "cards": ["QS"]}) == A.discard(c("QS"))
    assert A.action_from_json({"kind": 0}) == A.draw_stock()
    assert A.action_from_json({"kind": 8, "cards": [5], "meanings": [], "target": 0}) == A.discard(5)


@pytest.mark.parametrize("data,message", [
    ("draw", "an action is a JSON object"),
    ({"kind": "fly"}, "unknown action kind 'fly'"),
    ({"kind": "discard", "cards": ["ZZ"]}, "cannot read action"),
    ({"kind": "discard", "cards": [1, 2]}, "a discard action has 1 card(s) and 0 meaning(s)"),
    ({"kind": "meld_run", "cards": [1, 2, 3], "meanings": [1, 2]}, "one meaning per card"),
    ({"kind": "lay_off_run", "cards": [1], "meanings": [2], "target": "0"}, "malformed"),
    ({"kind": 9}, "unknown action kind 9"),
])
def test_bad_json_is_refused_with_a_reason(data: object, message: str) -> None:
    with pytest.raises(A.ActionFormatError) as err:
        A.action_from_json(data)
    assert message in str(err.value)


@pytest.mark.parametrize("text", [
    "fly away", "draw", "meld run", "meld run 5X 6H 7H", "lay off 8H on meld 2",
    "exchange 7H 2C on meld 1", "discard", "lay off 8H on run two",
])
def test_unreadable_text_is_refused_with_the_forms(text: str) -> None:
    with pytest.raises(IllegalActionError) as err:
        A.parse_action(text)
    assert f"cannot read action {text!r}" in str(err.value)
    assert "draw stock | draw discard" in str(err.value)


def test_actions_sort_by_kind_then_cards() -> None:
    actions = [A.discard(5), A.end_table(), A.exchange(1, 2, 0), A.lay_off_run(3, 3, 1),
               A.lay_off_set(3, 4, 0), A.meld_run((1, 2, 3), (1, 2, 3)), A.meld_set((1,), (2,)),
               A.draw_discard(), A.draw_stock(), A.discard(4)]
    assert [a.kind for a in sorted(actions)] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 8]
    assert sorted(actions)[-2:] == [A.discard(4), A.discard(5)]
    assert len({*actions}) == len(actions)

"""Helpers for the Crazy Rummy tests: rule sets, hand-arranged positions, and refusals.

Positions are built with :meth:`CrazyRummyState.from_position` (hands, melds and piles given
explicitly; the rest of the pack forms the stock). Unless a test says otherwise a position is
deal 2, so the 2s are wild, and it is seat 0's turn, about to draw.
"""

from __future__ import annotations

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

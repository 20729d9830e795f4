"""Crazy Eights test helpers: a position built by hand with ``arrange``, and actions by name."""

from __future__ import annotations

from typing import Any

from referee.cards import card_name, parse_cards
from referee.games import make_rules, new_match
from referee.games.crazy_eights.state import CrazyEightsState, arrange


def cards(text: str) -> list[int]:
    return parse_cards(text)


def setup(preset: str, players: int, hands: list[str], pile: str, stock: str = "", current: int = 0,
          overrides: dict[str, Any] | None = None, **kw: Any) -> CrazyEightsState:
    state = new_match("crazy-eights", make_rules("crazy-eights", preset, overrides), players, seed=1)
    assert isinstance(state, CrazyEightsState)
    return arrange(state, [cards(h) for h in hands], cards(pile), cards(stock), current, **kw)


def names(state: CrazyEightsState) -> list[str]:
    return [state.action_name(a) for a in state.legal_actions()]


def act(state: CrazyEightsState, text: str) -> None:
    state.apply(state.parse_action(text))


def hand(state: CrazyEightsState, seat: int) -> list[str]:
    return [card_name(c) for c in state.hand_cards(seat)]

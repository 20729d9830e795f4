"""Talon's bot SDK: subclass :class:`Bot`, implement ``decide(view)``, call :func:`run`
(or :class:`AsyncBot` with ``async def decide``).

Cards are ints (:mod:`talon_sdk.cards`); views and actions are typed (:mod:`talon_sdk.views`).
Names are loaded on first use, so ``import talon_sdk.cards`` (which the referee's rules engines
do) does not pull in gRPC.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from talon_sdk.bot import AsyncBot, Bot
    from talon_sdk.cards import card_name, card_rank, card_suit, parse_card, parse_cards, suit_name
    from talon_sdk.client import SessionError, play_seat, run
    from talon_sdk.rummy_views import RummyAction, RummyView
    from talon_sdk.views import Decision, EightsAction, EightsView, Event, make_view

_HOMES = {
    "AsyncBot": "bot", "Bot": "bot",
    "card_name": "cards", "card_rank": "cards", "card_suit": "cards", "parse_card": "cards",
    "parse_cards": "cards", "suit_name": "cards",
    "SessionError": "client", "play_seat": "client", "run": "client",
    "RummyAction": "rummy_views", "RummyView": "rummy_views",
    "Decision": "views", "EightsAction": "views", "EightsView": "views", "Event": "views", "make_view": "views",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'talon_sdk' has no attribute {name!r}")
    return getattr(importlib.import_module(f"talon_sdk.{home}"), name)

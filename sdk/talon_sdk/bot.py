"""The one class a bot author subclasses.

Implement :meth:`Bot.decide`: it gets a typed view of the decision (for Crazy Eights an
:class:`~talon_sdk.views.EightsView`) and returns one of ``view.legal_actions`` or an action's
text such as ``"draw"`` or ``"play 8H name S"``. The optional hooks hear about the match start,
errors the referee reports and the result; by default they only log.

:class:`AsyncBot` is the same with ``async def decide``, for a bot that awaits while it thinks.
"""

from __future__ import annotations

import abc
import logging
from typing import Any

LOGGER = logging.getLogger("talon_sdk")


class Bot(abc.ABC):
    """Base class of a bot: subclass it and implement :meth:`decide`."""

    name: str = ""
    """Sent to the referee in the Hello and shown in the bot's own logs; defaults to the class name.
    (Standings name a bot by its directory.)"""

    @abc.abstractmethod
    def decide(self, view: Any) -> Any:
        """Choose an action for ``view``: one of ``view.legal_actions``, or an action's text.

        Called once per decision, on the referee's clock (``view.decision.deadline_ms``).
        An exception here ends the bot (the referee records a crash), so let bugs surface.
        """

    def on_start(self, welcome: Any) -> None:
        """A match starts: ``welcome`` has ``match_id``, ``seat``, ``num_players``, ``rules``,
        ``clocks`` and ``seat_names`` (the proto ``Welcome``)."""

    def on_error(self, error: Any) -> None:
        """The referee reports a failure this bot caused (``kind``, ``message``, ``strikes``)."""

    def on_end(self, result: Any) -> None:
        """The match is over: ``result`` is the proto ``MatchResult`` (places, scores, failures)."""

    @property
    def display_name(self) -> str:
        return self.name or type(self).__name__


class AsyncBot(Bot):
    """A bot whose :meth:`decide` is a coroutine (``async def decide(self, view)``).

    For a bot that awaits while it thinks: its own asyncio work, or a search that runs in an
    executor (``await loop.run_in_executor(...)``) with ``asyncio.wait_for`` as its own clock.
    The SDK's stream and the bot share one event loop, so a ``decide`` that blocks without
    awaiting holds up the stream exactly as a plain :class:`Bot`'s does; the referee's clock is
    the same for both.
    """

    @abc.abstractmethod
    async def decide(self, view: Any) -> Any:
        """Choose an action for ``view``, as :meth:`Bot.decide`, awaiting what you need."""

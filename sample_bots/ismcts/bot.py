"""The ismcts bot: information-set Monte Carlo tree search for every preset of both games.

Settings (environment): ``TALON_ISMCTS_MS`` (time per decision, default 20),
``TALON_ISMCTS_ITERS`` (iteration cap, default 100000) and ``TALON_ISMCTS_SEED`` (default: from
the operating system). The budget is also capped by the referee's own clock (see
``talon_ismcts/clock.py``). The search simulates with Talon's pure rules engine, which the bot's
image carries (this directory's ``talon-engine`` marker asks the build for it).
"""

from __future__ import annotations

import gc
import json
import random
from typing import Any

from talon_sdk.bot import Bot
from talon_sdk.client import run

from referee.games import make_rules
from talon_ismcts import Agent, Settings, make_agent


class IsmctsBot(Bot):
    """A seat played by :mod:`talon_ismcts`; one agent per match."""

    name = "ismcts"

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings.from_env()
        self.rng = random.Random(self.settings.seed)
        self.agent: Agent | None = None

    def on_start(self, welcome: Any) -> None:
        rules = make_rules(welcome.rules.game, welcome.rules.preset,
                           json.loads(welcome.rules.overrides_json or "{}"))
        self.agent = make_agent(rules, welcome.seat, welcome.num_players, self.settings, self.rng)

    def decide(self, view: Any) -> Any:
        """The agent's answer, with the cyclic garbage collector paused meanwhile.

        A search allocates hundreds of thousands of small objects; a full collection in the
        middle of it can take longer than the whole budget. Nothing the search builds holds a
        reference cycle, so reference counting frees it all, and collection resumes between
        decisions, while the bot waits for the referee.
        """
        if self.agent is None:  # no welcome seen: the preset's rules are the best guess
            self.agent = make_agent(make_rules(view.game, view.preset), view.seat, view.num_players,
                                    self.settings, self.rng)
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self.agent.decide(view)
        finally:
            if enabled:
                gc.enable()


if __name__ == "__main__":
    run(IsmctsBot)

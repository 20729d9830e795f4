"""The ismcts reference bot's search package: tracker, sampler, clock and SO-ISMCTS.

It imports the pure rules engine (``referee.games``) as its simulator and the SDK's views; it
never touches the referee's service, sandbox or tournament code.
"""

from .agent import Agent, EightsAgent, make_agent
from .clock import Settings

__all__ = ["Agent", "EightsAgent", "Settings", "make_agent"]

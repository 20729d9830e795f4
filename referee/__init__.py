"""Talon's referee: rules engines, match loop, gRPC service, sandbox, tournaments and CLI.

This package's ``__init__`` imports nothing, so a bot image can carry the pure rules engine
(``referee.cards`` and ``referee.games``) without the service, the sandbox or the tournament.
"""

__version__ = "0.1.0"

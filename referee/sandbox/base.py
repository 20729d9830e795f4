"""The seam between the match loop and the places bots run (processes, Docker containers).

A sandbox starts a bot so that it can reach the referee at one address with the secrets it is
given, and tears it down without leaving anything behind. The match loop never knows which
sandbox it uses.

How a bot learns where to connect (the SDK's ``run()`` reads these):

* ``TALON_ADDRESS``: the referee's gRPC target, ``unix:///path/to/socket`` or ``host:port``.
* ``TALON_TOKEN``: the secret token of the one seat this bot plays (single-match bots), or
* ``TALON_TOKEN_FILE``: a file the sandbox rewrites with a fresh seat token for each match a
  warm bot serves. The bot plays that seat, then waits for the file to change and plays
  again; the word ``exit`` in the file tells it to stop.
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """A bot's output made safe to print on an operator's terminal: control characters (escape
    sequences that set a window title, write the clipboard or move the cursor to forge a line)
    are shown as ``\\xNN`` instead of acting. Line breaks and tabs stay."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class SandboxError(RuntimeError):
    """A bot could not be started or managed; the message says what to fix."""


class SandboxKind(str, enum.Enum):
    """The closed list of sandboxes."""

    PROCESS = "process"
    DOCKER = "docker"


PYTHON_ENTRY = "bot.py"
"""A Python bot: started as ``python3 bot.py`` (the SDK's ``run()``)."""
PROGRAM_ENTRY = "bot"
"""A bot in any language: an executable file (a binary, or a script with a ``#!`` line) started
as ``./bot``; it speaks the ``.proto`` contract itself (see docs/bot_protocol.md)."""


@dataclasses.dataclass(frozen=True)
class BotSpec:
    """A bot as submitted: a directory holding its entry (``bot.py``, or an executable ``bot``
    for a bot in another language) and, for the docker sandbox, a ``Dockerfile``."""

    name: str
    directory: Path
    entry: str = PYTHON_ENTRY
    """:data:`PYTHON_ENTRY` or :data:`PROGRAM_ENTRY`: what the process sandbox starts (the
    docker sandbox starts the image's ``CMD``, which the bot's Dockerfile sets)."""

    @classmethod
    def from_dir(cls, directory: str | Path) -> "BotSpec":
        path = Path(directory).resolve()
        if not path.is_dir():
            raise SandboxError(f"bot directory {str(directory)!r} does not exist")
        return cls(name=path.name, directory=path, entry=_entry(path, str(directory)))

    def command(self, python: str) -> list[str]:
        """The process sandbox's command line, run in a copy of the directory."""
        return [python, PYTHON_ENTRY] if self.entry == PYTHON_ENTRY else ["./" + PROGRAM_ENTRY]


def _entry(path: Path, shown: str) -> str:
    """Which entry the directory has; a ``bot.py`` wins over a ``bot`` program."""
    if (path / PYTHON_ENTRY).is_file():
        return PYTHON_ENTRY
    program = path / PROGRAM_ENTRY
    if program.is_file():
        if not os.access(program, os.X_OK):
            raise SandboxError(f"bot directory {shown!r}: {PROGRAM_ENTRY!r} is not executable; make it so "
                               f"(chmod +x {program}), or give a {PYTHON_ENTRY}")
        return PROGRAM_ENTRY
    raise SandboxError(
        f"bot directory {shown!r} has no bot: put in it a {PYTHON_ENTRY} (a Python bot, with the SDK) or an "
        f"executable named {PROGRAM_ENTRY!r} (a bot in any language that speaks the proto contract), and a "
        "Dockerfile for the docker sandbox"
    )


@dataclasses.dataclass(frozen=True)
class SeatAccess:
    """What a started bot needs to reach its seat."""

    address: str
    token: str | None = None
    token_file: Path | None = None

    def environment(self) -> Mapping[str, str]:
        env = {"TALON_ADDRESS": self.address}
        if self.token is not None:
            env["TALON_TOKEN"] = self.token
        if self.token_file is not None:
            env["TALON_TOKEN_FILE"] = str(self.token_file)
        return env


class BotHandle(abc.ABC):
    """A running bot."""

    @abc.abstractmethod
    def is_alive(self) -> bool:
        """Whether the bot's process (or container) still runs."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Kill the bot and everything it started; idempotent; reaps every child."""

    @abc.abstractmethod
    def logs(self) -> str:
        """The bot's recent output (bounded), for failure reports."""


class Listeners(Protocol):
    """The referee service's side of the seam: a sandbox that needs a private socket for one
    bot (Docker mounts one directory per container) asks the running service to listen there
    too. The service serves the same matches on every listener."""

    async def add_unix_listener(self, path: Path) -> str:
        """Serve also on the Unix socket ``path``; return its gRPC target (``unix://...``).

        The socket is created owned by the service; the caller sets owner and mode."""
        ...

    async def remove_unix_listener(self, path: Path) -> None:
        """Stop serving on ``path`` and remove the socket file."""
        ...


class Sandbox(abc.ABC):
    """Starts bots; owns whatever it starts until :meth:`close`."""

    kind: SandboxKind

    @abc.abstractmethod
    async def start(self, bot: BotSpec, access: SeatAccess) -> BotHandle:
        """Start ``bot`` so that it connects to ``access``; raise :class:`SandboxError`."""

    async def prepare(self, bots: Iterable[BotSpec]) -> dict[str, SandboxError]:
        """Do now, once, what every start of these bots needs (Docker: reach the engine, sweep
        what dead runs left, find or build each bot's image), so that a start pays only for
        its own bot and a broken bot is known before the first match.

        Returns, per bot that cannot start, why; its starts raise the same error, so the
        caller may go on and let the matches that need it record the failure."""
        return {}

    @abc.abstractmethod
    async def close(self) -> None:
        """Stop every bot this sandbox started."""

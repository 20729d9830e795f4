"""Support for the referee tests: bot lookup, the Arena (a real gRPC referee on a real Unix
socket with a process sandbox) and process checks.

Kept out of conftest.py so tests can import it by a unique name: several test folders have a
conftest, and ``from conftest import`` picks whichever was imported last.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from referee.match import BotSeat, SeatSpec, run_match
from referee.match_types import Clocks, MatchConfig, MatchResult
from referee.sandbox.base import BotSpec
from referee.sandbox.process import ProcessSandbox
from referee.server import RefereeService, ServiceConfig

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_bots"
MISBEHAVING = SAMPLES / "misbehaving"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
T = TypeVar("T")


def bot(name: str) -> BotSpec:
    """A sample, misbehaving or test bot by name."""
    for root in (SAMPLES, MISBEHAVING, TEST_BOTS):
        if (root / name / "bot.py").is_file():
            return BotSpec.from_dir(root / name)
    raise LookupError(name)


class Arena:
    """A running referee service with a process sandbox, driven from synchronous tests."""

    def __init__(self, control: bool = False) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tl-"))  # short: a socket path holds 107 bytes
        self.runner = asyncio.Runner()
        config = ServiceConfig(bot_unix=self.dir / "bots.sock",
                               control_unix=self.dir / "control.sock" if control else None)
        self.service = RefereeService(config)
        self.runner.run(self.service.start())
        self.sandbox = ProcessSandbox()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.runner.run(coro)

    def play(self, game: str, preset: str, seed: int, seats: Sequence[SeatSpec | str],
             clocks: Clocks = Clocks(), overrides: dict[str, Any] | None = None) -> MatchResult:
        specs = [BotSeat(bot(s)) if isinstance(s, str) else s for s in seats]
        config = MatchConfig(game, preset, seed, overrides or {}, clocks)
        return self.run(run_match(config, specs, service=self.service, sandbox=self.sandbox))

    def close(self) -> None:
        try:
            self.run(self.sandbox.close())
            self.run(self.service.stop(grace_s=1.0))
        finally:
            self.runner.close()
            shutil.rmtree(self.dir, ignore_errors=True)


def zombies_of(pid: int) -> list[int]:
    """Children of ``pid`` that are zombies."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if fields[0] == "Z" and int(fields[1]) == pid:
                found.append(int(entry))
    return found

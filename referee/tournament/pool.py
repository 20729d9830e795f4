"""Warm bot instances for the tournament runner: started once, reused match after match.

A bot instance is started with a token file (``TALON_TOKEN_FILE``) and plays every seat token
written there, so a tournament pays for starting a bot (a Python interpreter, and in Docker a
container: 0.3-1.5 s on a busy machine) once per instance instead of once per seat and match.

The pool starts what the first matches need **all at once** before play begins
(:meth:`WarmPool.warm_up`), and later starts whatever a match is missing concurrently
(:meth:`WarmPool.acquire_all`): starts then overlap instead of queueing one behind the other,
which is what the time lost to starting containers was made of (see docs/performance.md,
"Sandbox"). Idle instances are kept; an instance that died is replaced. :meth:`WarmPool.close`
tells every instance to exit and stops it, so nothing outlives the run, interrupted or not.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from referee.sandbox.base import BotHandle, BotSpec, Sandbox, SandboxError, SandboxKind, SeatAccess
from referee.tournament.schedule import DealGroup

EXIT_WORD = "exit"
"""Written to a warm bot's token file to make it stop (the SDK's protocol)."""


class WarmBot:
    """One running instance of a bot, fed seat tokens through ``token_file``."""

    def __init__(self, name: str, handle: BotHandle, token_file: Path) -> None:
        self.name, self.handle, self.token_file = name, handle, token_file


class WarmPool:
    """Idle warm instances per bot; starts more on demand, replaces dead ones."""

    def __init__(self, sandbox: Sandbox, bots: Mapping[str, BotSpec], target: str, workdir: Path) -> None:
        self.sandbox, self.bots, self.target, self.workdir = sandbox, bots, target, workdir
        self.idle: dict[str, list[WarmBot]] = {name: [] for name in bots}
        self.all: list[WarmBot] = []
        self._dead: list[WarmBot] = []
        """Instances found dead on release, stopped at the next acquire (or at close)."""
        self._count = 0

    @property
    def started(self) -> int:
        """Instances started so far (replacements included)."""
        return self._count

    async def _start(self, name: str) -> WarmBot:
        self._count += 1
        spec = self.bots[name]
        if self.sandbox.kind == SandboxKind.DOCKER:
            handle = await self.sandbox.start(spec, SeatAccess(address=self.target))
            token_file = Path(getattr(handle, "token_file"))
        else:
            token_file = self.workdir / f"bot{self._count}.token"
            handle = await self.sandbox.start(spec, SeatAccess(address=self.target, token_file=token_file))
        bot = WarmBot(name, handle, token_file)
        self.all.append(bot)
        return bot

    async def warm_up(self, names: Iterable[str]) -> None:
        """Start one idle instance per entry of ``names`` (a bot named twice gets two), all at
        once. A bot that cannot start is left out: the match that needs it tries again and
        records the failure as that bot's crash."""
        results = await asyncio.gather(*(self._start(n) for n in names), return_exceptions=True)
        for result in results:
            if isinstance(result, WarmBot):
                self.idle[result.name].append(result)
            elif not isinstance(result, SandboxError):
                raise result

    async def acquire(self, name: str) -> WarmBot:
        """An idle live instance of ``name``, or a new one.

        :raises SandboxError: when a new one cannot start."""
        while self._dead:
            await self._retire(self._dead.pop())
        while self.idle[name]:
            bot = self.idle[name].pop()
            if bot.handle.is_alive():
                return bot
            await self._retire(bot)
        return await self._start(name)

    async def acquire_all(self, names: Sequence[str]) -> list[WarmBot | None]:
        """An instance per seat of a match, missing ones started concurrently; ``None`` for a
        bot that cannot start (the match then gives it a single-match seat, whose start fails
        again and is recorded as the bot's crash, so one broken bot cannot stop a tournament)."""

        async def one(name: str) -> WarmBot | None:
            try:
                return await self.acquire(name)
            except SandboxError:
                return None

        return list(await asyncio.gather(*(one(n) for n in names)))

    def release(self, bot: WarmBot) -> None:
        """Give an instance back after its match (a dead one is stopped later and forgotten).

        Not a coroutine on purpose: between a match's end and its deal group's commit the runner
        must not yield to the event loop, or a Ctrl-C could land there (see the runner)."""
        if bot.handle.is_alive():
            self.idle[bot.name].append(bot)
        else:
            self._dead.append(bot)

    async def _retire(self, bot: WarmBot) -> None:
        _say_exit(bot)
        await bot.handle.stop()

    async def close(self) -> None:
        """Tell every instance to exit, then stop them all (killing what does not listen)."""
        for bot in self.all:
            _say_exit(bot)
        await asyncio.gather(*(b.handle.stop() for b in self.all), return_exceptions=True)


def _say_exit(bot: WarmBot) -> None:
    try:
        bot.token_file.write_text(EXIT_WORD)
    except OSError:
        pass


def first_wave(groups: Sequence[DealGroup], concurrency: int, finished: Iterable[str] = ()) -> list[str]:
    """The bots the first ``concurrency`` groups' first unplayed matches seat, one entry per
    seat: what :meth:`WarmPool.warm_up` should start before play begins. ``finished`` are
    match ids already played (pending matches of a resumed run)."""
    done = set(finished)
    names: collections.Counter[str] = collections.Counter()
    for group in groups[:max(1, concurrency)]:
        match = next((m for m in group.matches if m.match_id not in done), None)
        if match is not None:
            names.update(match.seats)
    return list(names.elements())

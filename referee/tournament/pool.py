"""Warm bot instances for the tournament runner: started once, reused match after match.

A bot instance is started with a token file (``TALON_TOKEN_FILE``) and plays every seat token
written there, so a tournament pays for starting a bot (a Python interpreter, and in Docker a
container: 0.2-1.5 s) once per instance instead of once per seat and match.

**An instance never plays two matches of one deal group.** A group is one deal played once per
seat rotation; a bot that kept what it saw in rotation 0 would know, in rotation 1, which hand
each other seat holds and the order of the stock, and duplicate deals would reward that instead
of play. So every instance is bound to one rotation index (its *slot*, ``(bot, rotation)``)
and plays only that rotation's matches: each group has one match per rotation, so an instance
sees each deal once, whatever it remembers. (Deals differ between groups and tables: their
seeds are derived from both.) A heads-up tournament therefore runs two instances per bot, and
the runner plays a group's rotations side by side so those two are busy at once.

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

from referee.match import write_token_file
from referee.sandbox.base import BotHandle, BotSpec, Sandbox, SandboxError, SandboxKind, SeatAccess
from referee.tournament.schedule import Match

EXIT_WORD = "exit"
"""Written to a warm bot's token file to make it stop (the SDK's protocol)."""


Slot = tuple[str, int]
"""``(bot name, rotation index)``: the only matches an instance plays (see the module doc)."""


class WarmBot:
    """One running instance of a bot, fed seat tokens through ``token_file``; it plays only
    matches of rotation ``rotation``."""

    def __init__(self, name: str, rotation: int, handle: BotHandle, token_file: Path) -> None:
        self.name, self.rotation, self.handle, self.token_file = name, rotation, handle, token_file

    @property
    def slot(self) -> Slot:
        return (self.name, self.rotation)


class WarmPool:
    """Idle warm instances per bot; starts more on demand, replaces dead ones."""

    def __init__(self, sandbox: Sandbox, bots: Mapping[str, BotSpec], target: str, workdir: Path) -> None:
        self.sandbox, self.bots, self.target, self.workdir = sandbox, bots, target, workdir
        self.idle: collections.defaultdict[Slot, list[WarmBot]] = collections.defaultdict(list)
        self.all: list[WarmBot] = []
        self._dead: list[WarmBot] = []
        """Instances found dead on release, stopped at the next acquire (or at close)."""
        self._count = 0
        self.live: collections.Counter[Slot] = collections.Counter()
        """Instances per slot that are running or starting (not found dead)."""
        self._freed = asyncio.Event()

    @property
    def started(self) -> int:
        """Instances started so far (replacements included)."""
        return self._count

    async def _start(self, slot: Slot) -> WarmBot:
        name, rotation = slot
        self._count += 1
        self.live[slot] += 1
        spec = self.bots[name]
        try:
            if self.sandbox.kind == SandboxKind.DOCKER:
                handle = await self.sandbox.start(spec, SeatAccess(address=self.target))
                token_file = Path(getattr(handle, "token_file"))
            else:
                token_file = self.workdir / f"bot{self._count}.token"
                handle = await self.sandbox.start(spec, SeatAccess(address=self.target, token_file=token_file))
        except BaseException:
            self.live[slot] -= 1
            self._freed.set()  # a worker waiting for this slot may start one itself now
            raise
        bot = WarmBot(name, rotation, handle, token_file)
        self.all.append(bot)
        return bot

    async def warm_up(self, slots: Iterable[Slot]) -> None:
        """Start one idle instance per entry of ``slots`` (a slot named twice gets two), all at
        once. A bot that cannot start is left out: the match that needs it tries again and
        records the failure as that bot's crash."""
        results = await asyncio.gather(*(self._start(s) for s in slots), return_exceptions=True)
        for result in results:
            if isinstance(result, WarmBot):
                self.idle[result.slot].append(result)
            elif not isinstance(result, SandboxError):
                raise result

    def has_idle(self, slot: Slot) -> bool:
        """Whether an instance of ``slot`` is waiting (alive or not: :meth:`acquire_all`
        replaces a dead one)."""
        return bool(self.idle.get(slot))

    def _take_idle(self, slot: Slot) -> WarmBot | None:
        """An idle live instance of ``slot``, taken at once (no await: two workers choosing
        at the same moment cannot both get it); dead ones are set aside for retiring."""
        idle = self.idle.get(slot, [])
        while idle:
            bot = idle.pop()
            if bot.handle.is_alive():
                return bot
            self._set_aside(bot)
        return None

    def _set_aside(self, bot: WarmBot) -> None:
        self.live[bot.slot] -= 1
        self._dead.append(bot)

    async def _retire_dead(self) -> None:
        while self._dead:
            await self._retire(self._dead.pop())

    async def acquire_all(self, names: Sequence[str], rotation: int) -> list[WarmBot | None]:
        """An instance per seat of a match of rotation ``rotation``: idle ones taken at once,
        missing ones started concurrently; ``None`` for a bot that cannot start (the match then
        gives it a single-match seat, whose start fails again and is recorded as the bot's
        crash, so one broken bot cannot stop a tournament)."""
        taken = [self._take_idle((name, rotation)) for name in names]
        await self._retire_dead()

        async def one(name: str, bot: WarmBot | None) -> WarmBot | None:
            if bot is not None:
                return bot
            try:
                return await self._start((name, rotation))
            except SandboxError:
                return None

        return list(await asyncio.gather(*(one(n, b) for n, b in zip(names, taken))))

    def release(self, bot: WarmBot) -> None:
        """Give an instance back after its match (a dead one is stopped later and forgotten).

        Not a coroutine on purpose: between a match's end and its deal group's commit the runner
        must not yield to the event loop, or a Ctrl-C could land there (see the runner)."""
        if bot.handle.is_alive():
            self.idle[bot.slot].append(bot)
        else:
            self._set_aside(bot)
        self._freed.set()

    async def wait_for_release(self) -> None:
        """Return after the next :meth:`release` (or failed start)."""
        self._freed.clear()
        await self._freed.wait()

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
        write_token_file(bot.token_file, EXIT_WORD)  # atomically, as every token: a poller never sees it half-written
    except OSError:
        pass


def first_wave(matches: Sequence[Match], concurrency: int) -> list[Slot]:
    """The slots the first matches will use, one entry per instance: what
    :meth:`WarmPool.warm_up` should start before play begins. ``matches`` are the unplayed
    matches in the order the runner plays them; the first ``concurrency`` run at once, and the
    rest of their groups' rotations follow at once (with one worker, rotation 1 comes right
    after rotation 0), so their slots are started in the same wave instead of a second one."""
    width = max(1, concurrency)
    wave: collections.Counter[Slot] = collections.Counter()
    for match in matches[:width]:
        wave.update((name, match.rotation) for name in match.seats)
    groups = {m.group_key for m in matches[:width]}
    for match in matches[width:]:
        if match.group_key in groups:
            for name in match.seats:
                wave[(name, match.rotation)] = max(wave[(name, match.rotation)], 1)
    return list(wave.elements())

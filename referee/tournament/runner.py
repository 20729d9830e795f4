"""The tournament runner: plays the schedule's deal groups through the match loop into the store.

How it runs:

* One referee service on a private Unix socket and one sandbox (process or Docker) for the
  whole tournament. Bots are **warm**: each bot instance is started once with a token file and
  serves match after match (starting a Python interpreter costs ~240 ms; a match far less).
  A pool keeps idle instances per bot and starts another only when a bot is needed by more
  concurrent matches than it has instances; an instance that died is replaced.
* ``concurrency`` workers each take the next unfinished deal group and play its k rotations
  one after another, so at most ``concurrency`` matches run at once.
* Each finished match goes to the store's ``pending`` table at once; the group is committed in
  one transaction when its last rotation ends. A resumed run skips committed groups and reuses
  the pending matches of unfinished ones, so every scheduled game is played exactly once.

Reproducibility: the schedule, every deal seed and the match ids (``t<table>-g<group>-r<rot>``,
also the referee's match id the bots see) depend only on the config. Bots that seed their own
randomness from the match (``welcome.match_id`` and ``seat``) then give identical results on
a rerun, interrupted or not, at any concurrency. A bot that carries state between matches
cannot be replayed exactly by anyone; the runner still records what it did.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.match_types import Clocks, MatchConfig
from referee.match_types import MatchResult as PlayedMatch
from referee.sandbox.base import BotHandle, BotSpec, Sandbox, SandboxError, SandboxKind, SeatAccess
from referee.tournament.config import ConfigError, TournamentConfig
from referee.tournament.ratings import LiveRatings
from referee.tournament.results import Failure, MatchResult
from referee.tournament.schedule import DealGroup, Match, Schedule
from referee.tournament.store import TournamentStore

CLOCK_OPTIONS = ("decision_ms", "bank_ms", "max_strikes")
"""Config options the runner reads (the match loop's clocks); they are part of the config so a
resume with other clocks is refused."""


@dataclasses.dataclass(frozen=True)
class Progress:
    """Reported after every committed deal group."""

    groups_done: int
    groups_total: int
    matches_played: int
    """Matches played by this run (not counting earlier runs of a resumed tournament)."""
    live: LiveRatings


def bot_digest(directory: Path) -> str:
    """SHA-256 over a bot directory's files (names and contents), to refuse resuming with
    changed bot code. Caches and compiled files are ignored."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory).as_posix()
        if "__pycache__" in rel or rel.endswith(".pyc"):
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def clocks_of(config: TournamentConfig) -> Clocks:
    """The match clocks the config's options ask for (the match loop's defaults otherwise)."""
    options = dict(config.options)
    values = {name: options[name] for name in CLOCK_OPTIONS if name in options}
    try:
        return Clocks(**values)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def check_bots(config: TournamentConfig, bots: Mapping[str, BotSpec]) -> None:
    """Raise :class:`ConfigError` unless ``bots`` are exactly the config's field (and, when the
    config records digests, the same code)."""
    if sorted(bots) != list(config.bots):
        raise ConfigError(
            f"bot directories give {', '.join(sorted(bots))}; the tournament's field is {', '.join(config.bots)}"
        )
    digests = dict(config.options).get("bot_digests")
    if isinstance(digests, dict):
        changed = sorted(n for n, spec in bots.items() if digests.get(n) != bot_digest(spec.directory))
        if changed:
            raise ConfigError(f"bot code changed since the tournament started: {', '.join(changed)}")


def to_result(match: Match, played: PlayedMatch, replay: str | None) -> MatchResult:
    """The match loop's result as the tournament records it."""
    failures = tuple(Failure(f.kind.value, f.seat, f.decision, f.message) for f in played.failures)
    status = "forfeit" if any(s.taken_over for s in played.seats) else "ok"
    return MatchResult.for_match(
        match, played.places, played.scores, failures,
        duration=played.duration_ms / 1000, replay=replay, status=status,
    )


class _WarmBot:
    def __init__(self, name: str, handle: BotHandle, token_file: Path) -> None:
        self.name, self.handle, self.token_file = name, handle, token_file


class _Pool:
    """Idle warm instances per bot; starts more on demand, replaces dead ones."""

    def __init__(self, sandbox: Sandbox, bots: Mapping[str, BotSpec], target: str, workdir: Path) -> None:
        self.sandbox, self.bots, self.target, self.workdir = sandbox, bots, target, workdir
        self.idle: dict[str, list[_WarmBot]] = {name: [] for name in bots}
        self.all: list[_WarmBot] = []
        self.count = 0

    async def acquire(self, name: str) -> _WarmBot:
        while self.idle[name]:
            bot = self.idle[name].pop()
            if bot.handle.is_alive():
                return bot
            await self._retire(bot)
        self.count += 1
        spec = self.bots[name]
        if self.sandbox.kind == SandboxKind.DOCKER:
            handle = await self.sandbox.start(spec, SeatAccess(address=self.target))
            token_file = Path(getattr(handle, "token_file"))
        else:
            token_file = self.workdir / f"bot{self.count}.token"
            handle = await self.sandbox.start(spec, SeatAccess(address=self.target, token_file=token_file))
        bot = _WarmBot(name, handle, token_file)
        self.all.append(bot)
        return bot

    async def release(self, bot: _WarmBot) -> None:
        if bot.handle.is_alive():
            self.idle[bot.name].append(bot)
        else:
            await self._retire(bot)

    async def _retire(self, bot: _WarmBot) -> None:
        try:
            bot.token_file.write_text("exit")
        except OSError:
            pass
        await bot.handle.stop()

    async def close(self) -> None:
        for bot in self.all:
            try:
                bot.token_file.write_text("exit")
            except OSError:
                pass
        await asyncio.gather(*(b.handle.stop() for b in self.all), return_exceptions=True)


async def run_tournament(
    store: TournamentStore,
    bots: Mapping[str, BotSpec],
    *,
    concurrency: int = 1,
    replay_dir: Path | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    sandbox: Sandbox | None = None,
) -> int:
    """Play every deal group of ``store.config`` not yet stored; return the matches played.

    :raises ConfigError: when the bots do not match the config.
    """
    from referee.server import RefereeService, ServiceConfig

    config = store.config
    check_bots(config, bots)
    clocks = clocks_of(config)
    schedule = Schedule.from_config(config)
    done = store.completed_groups()
    todo = [g for g in schedule.groups() if g.key not in done]
    live = LiveRatings()
    for result in store.results():
        live.update(result)
    counter = {"played": 0, "groups": len(done)}
    if replay_dir is not None:
        replay_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="talon-t-") as tmp:
        async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
            own_sandbox = sandbox is None
            box = sandbox or _make_sandbox(config.sandbox, service)
            pool = _Pool(box, bots, service.bot_target, Path(tmp))
            queue: asyncio.Queue[DealGroup] = asyncio.Queue()
            for group in todo:
                queue.put_nowait(group)

            async def worker() -> None:
                while not queue.empty():
                    group = queue.get_nowait()
                    results = await _play_group(group, config, clocks, store, pool, service, box, replay_dir, counter)
                    store.commit_group(group, results)
                    for result in results:
                        live.update(result)
                    counter["groups"] += 1
                    if on_progress is not None:
                        on_progress(Progress(counter["groups"], schedule.group_count, counter["played"], live))

            tasks = [asyncio.create_task(worker()) for _ in range(max(1, concurrency))]
            try:
                await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:  # one worker failed (or we were interrupted): stop the others
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            finally:
                await pool.close()
                if own_sandbox:
                    await box.close()
    return counter["played"]


def _make_sandbox(kind: str, service: Any) -> Sandbox:
    if kind == "docker":
        from referee.sandbox.docker_sandbox import DockerSandbox

        return DockerSandbox(service)
    from referee.sandbox.process import ProcessSandbox

    return ProcessSandbox()


async def _play_group(
    group: DealGroup, config: TournamentConfig, clocks: Clocks, store: TournamentStore, pool: _Pool,
    service: Any, sandbox: Sandbox, replay_dir: Path | None, counter: dict[str, int],
) -> list[MatchResult]:
    """The group's results: pending ones from an interrupted run, the rest played now."""
    from referee.match import BotSeat, WarmSeat, run_match
    from referee.replay import write_replay

    kept = {r.match_id: r for r in store.pending(group.table, group.group)}
    results: list[MatchResult] = []
    for match in group.matches:
        earlier = kept.get(match.match_id)
        if earlier is not None and (earlier.seats, earlier.seed) == (match.seats, match.seed):
            results.append(earlier)
            continue
        instances = [await _acquire(pool, name) for name in match.seats]
        try:
            seats: list[WarmSeat | BotSeat] = [
                WarmSeat(b.name, b.handle, b.token_file) if b is not None else BotSeat(pool.bots[name], name)
                for name, b in zip(match.seats, instances)
            ]
            match_config = MatchConfig(
                config.game, config.rules, match.seed, dict(config.rule_overrides), clocks, match_id=match.match_id
            )
            played = await run_match(match_config, seats, service=service, sandbox=sandbox)
        finally:
            for bot in instances:
                if bot is not None:
                    await pool.release(bot)
        replay: str | None = None
        if replay_dir is not None:
            path = replay_dir / f"{match.match_id}.json"
            write_replay(path, played.replay)
            replay = str(path)
        result = to_result(match, played, replay)
        store.record_pending(result)
        counter["played"] += 1
        results.append(result)
    return results


async def _acquire(pool: _Pool, name: str) -> _WarmBot | None:
    """A warm instance of ``name``, or ``None`` when it cannot start: the match then gets a
    single-match seat whose start fails again, which the match loop records as the bot's
    crash (the fallback plays the seat), so one broken bot cannot stop the tournament."""
    try:
        return await pool.acquire(name)
    except SandboxError:
        return None


def tournament_options(
    bots: Sequence[BotSpec], decision_ms: int | None, bank_ms: int | None, max_strikes: int | None
) -> dict[str, Any]:
    """The runner's part of a config's options: clocks and the bots' code digests."""
    options: dict[str, Any] = {"bot_digests": {b.name: bot_digest(b.directory) for b in bots}}
    for name, value in (("decision_ms", decision_ms), ("bank_ms", bank_ms), ("max_strikes", max_strikes)):
        if value is not None:
            options[name] = value
    return options

"""The tournament runner: plays the schedule's deal groups through the match loop into the store.

How it runs:

* One referee service on a private Unix socket and one sandbox (process or Docker) for the
  whole tournament. Bots are **warm** (:mod:`referee.tournament.pool`): each bot instance is
  started once with a token file and serves match after match (starting a Python interpreter
  costs ~240 ms, a container 0.1-1.5 s; a match far less). Before any start the sandbox
  prepares every bot once (Docker: finds or builds its image) and a bot that cannot start is
  named in a warning. What the first matches need is then started all at once before play;
  later a match's missing instances start concurrently.
  An instance plays one rotation index only, so it never sees a deal twice (the pool's doc).
* ``concurrency`` workers each take the next unplayed match, in group order (a group's
  rotations one after another in the queue, so with two workers a heads-up group's two
  rotations run side by side on the two rotations' instances), so at most ``concurrency``
  matches run at once.
* Each finished match goes to the store's ``pending`` table at once; the group is committed in
  one transaction when its last match ends, by whichever worker played it. A resumed run
  skips committed groups and reuses the pending matches of unfinished ones, so every
  scheduled game is played exactly once.

Interruption (Ctrl-C): ``asyncio.run`` turns SIGINT into a cancellation of the main task. The
workers are cancelled at their next ``await``, so running matches are **stopped**, not finished
(their bots are told the referee is shutting down, and the matches are not recorded). Nothing
awaits between the end of a match, its pending row and (after a group's last match) the
group's commit, so every finished match is kept and every group whose matches all finished is
committed. Then every bot instance and the sandbox are stopped before the cancellation
propagates, so a ``--resume`` later plays exactly the missing matches.

Reproducibility: the schedule, every deal seed and the match ids (``t<table>-g<group>-r<rot>``,
also the referee's match id the bots see) depend only on the config. Bots that seed their own
randomness from the match (``welcome.match_id`` and ``seat``) then give identical results on
a rerun, interrupted or not, at any concurrency. A bot that carries state between matches
cannot be replayed exactly by anyone; the runner still records what it did.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import hashlib
import itertools
import json
import logging
import signal
import tempfile
import threading
from functools import partial
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.match_types import Clocks, MatchConfig
from referee.match_types import MatchResult as PlayedMatch
from referee.sandbox.base import BotSpec, Listeners, Sandbox
from referee.tournament.config import ConfigError, TournamentConfig
from referee.tournament.pool import WarmBot, WarmPool, first_wave
from referee.tournament.ratings import LiveRatings
from referee.tournament.results import Failure, MatchResult
from referee.tournament.schedule import DealGroup, Match, Schedule
from referee.tournament.store import TournamentStore

LOGGER = logging.getLogger(__name__)
CLOCK_OPTIONS = ("decision_ms", "bank_ms", "max_strikes")
"""Config options the runner reads (the match loop's clocks); they are part of the config so a
resume with other clocks is refused."""


@dataclasses.dataclass(frozen=True)
class Progress:
    """Where a run stands: reported after every match and after every committed deal group."""

    groups_done: int
    groups_total: int
    matches_played: int
    """Matches played by this run (not counting earlier runs of a resumed tournament)."""
    live: LiveRatings
    """The provisional OpenSkill table, updated when a group is committed."""
    matches_done: int = 0
    """Matches of the tournament finished so far, earlier runs and pending ones included."""
    matches_total: int = 0


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
    failures = tuple(Failure(f.kind.value, f.seat, f.decision, f.for_operator())  # the organiser's record
                     for f in played.failures)
    status = "forfeit" if any(s.taken_over for s in played.seats) else "ok"
    return MatchResult.for_match(
        match, played.places, played.scores, failures,
        duration=played.duration_ms / 1000, replay=replay, status=status,
    )


def matches_so_far(store: TournamentStore) -> tuple[int, int]:
    """``(finished, total)`` matches of the stored tournament: the matches of committed groups
    and the pending ones of unfinished groups, out of all the schedule's."""
    schedule = Schedule.from_config(store.config)
    done = store.completed_groups()
    todo = [g for g in schedule.groups() if g.key not in done]
    finished = schedule.match_count - sum(len(g.matches) for g in todo)
    return finished + sum(len(store.pending(g.table, g.group)) for g in todo), schedule.match_count


@dataclasses.dataclass
class _Tally:
    """The run's counts, shared by its workers (one event loop: no locks)."""

    groups_done: int
    groups_total: int
    matches_done: int
    matches_total: int
    played: int = 0

    def progress(self, live: LiveRatings) -> Progress:
        return Progress(self.groups_done, self.groups_total, self.played, live, self.matches_done,
                        self.matches_total)


async def run_tournament(
    store: TournamentStore,
    bots: Mapping[str, BotSpec],
    *,
    concurrency: int = 1,
    replay_dir: Path | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    on_match: Callable[[Progress], None] | None = None,
    sandbox: Sandbox | None = None,
    make_sandbox: Callable[[Listeners], Sandbox] | None = None,
) -> int:
    """Play every deal group of ``store.config`` not yet stored; return the matches played.

    ``on_progress`` is called after each committed group, ``on_match`` after each finished
    match. ``sandbox`` (not closed here) or ``make_sandbox`` (given the referee service, for
    a sandbox that needs its listeners, e.g. an instrumented Docker sandbox) replace the
    sandbox the config names. Cancelled (Ctrl-C), it stops as the module doc says.

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
    groups = [_GroupRun.resume(group, store) for group in todo]
    queue = collections.deque((g, m) for g in groups for m in g.unplayed())
    tally = _Tally(len(done), schedule.group_count, schedule.match_count - len(queue), schedule.match_count)
    if replay_dir is not None:
        replay_dir.mkdir(parents=True, exist_ok=True)

    def commit(run: _GroupRun) -> None:
        results = run.ordered()
        store.commit_group(run.group, results)
        for result in results:
            live.update(result)
        tally.groups_done += 1
        if on_progress is not None:
            on_progress(tally.progress(live))

    for run in groups:  # every match played before a crash, but the group not committed
        if run.complete():
            commit(run)
    with tempfile.TemporaryDirectory(prefix="talon-t-") as tmp:
        async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
            own_sandbox = sandbox is None
            box = sandbox or (make_sandbox or partial(_make_sandbox, config))(service)
            pool = WarmPool(box, bots, service.bot_target, Path(tmp))

            def played_one() -> None:
                tally.played += 1
                tally.matches_done += 1
                if on_match is not None:
                    on_match(tally.progress(live))

            workers = max(1, concurrency)
            cap = -(-workers // config.table_size)  # instances per slot: enough for `workers` matches

            async def worker() -> None:
                while queue:
                    item = _take_next(queue, pool, cap)
                    if item is None:
                        await pool.wait_for_release()
                        continue
                    run, match = item
                    result = await _play(match, config, clocks, store, pool, service, box, replay_dir, played_one)
                    run.results[match.match_id] = result  # no await since the match ended: see the module doc
                    if run.complete():
                        commit(run)

            tasks: list[asyncio.Task[None]] = []
            try:
                if queue:
                    for name, error in (await box.prepare(bots.values())).items():
                        LOGGER.warning("bot %s cannot start (its matches will record it): %s", name, error)
                await pool.warm_up(first_wave([m for _, m in queue], workers))
                tasks = [asyncio.create_task(worker()) for _ in range(workers)]
                await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:  # one worker failed (or we were interrupted): stop the others
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            finally:
                with _interrupts_deferred():  # a second Ctrl-C must not leave bots running
                    await pool.close()
                    if own_sandbox:
                        await box.close()
    return tally.played


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Ignore Ctrl-C while the bots are being stopped (from the main thread; elsewhere, a no-op):
    a second Ctrl-C right after the first interrupted that and left containers running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


LOOKAHEAD = 64
"""How far down the queue a worker looks for a match it can play now."""


def _take_next(queue: collections.deque[tuple[_GroupRun, Match]], pool: WarmPool,
               cap: int) -> tuple[_GroupRun, Match] | None:
    """The next match to play, taken off ``queue``; ``None``: wait for a match to end.

    First choice, the first queued match whose every seat has an idle instance of its slot.
    Matches of a heads-up group alternate rotations 0 and 1 in the queue: when a worker ends a
    rotation-1 match while another still plays rotation 0, the head is often the next group's
    rotation 0, whose instances are busy, and the rotation-1 match just behind it reuses the idle
    ones. Second choice, the first match whose missing instances may be started: a slot holds
    at most ``cap`` instances. Otherwise the worker waits: a container start costs more than
    the rest of a match (docs/performance.md, "Sandbox")."""
    window = list(itertools.islice(queue, LOOKAHEAD))
    for may_start in (False, True):
        for index, (_, match) in enumerate(window):
            slots = [(name, match.rotation) for name in match.seats]
            if all(pool.has_idle(s) or (may_start and pool.live[s] < cap) for s in slots):
                del queue[index]
                return window[index]
    return None


@dataclasses.dataclass
class _GroupRun:
    """A deal group being played: its results so far by match id (pending ones of an
    interrupted run included)."""

    group: DealGroup
    results: dict[str, MatchResult]

    @classmethod
    def resume(cls, group: DealGroup, store: TournamentStore) -> _GroupRun:
        """The group with the pending results an earlier run stored for these very matches."""
        expected = {m.match_id: (m.seats, m.seed) for m in group.matches}
        kept = {r.match_id: r for r in store.pending(group.table, group.group)
                if expected.get(r.match_id) == (r.seats, r.seed)}
        return cls(group, kept)

    def unplayed(self) -> list[Match]:
        return [m for m in self.group.matches if m.match_id not in self.results]

    def complete(self) -> bool:
        return not self.unplayed()

    def ordered(self) -> list[MatchResult]:
        return [self.results[m.match_id] for m in self.group.matches]


def _make_sandbox(config: TournamentConfig, service: Listeners) -> Sandbox:
    if config.sandbox == "docker":
        from referee.sandbox.docker_sandbox import DockerSandbox

        return DockerSandbox.with_limits(service, dict(config.options))
    from referee.sandbox.process import ProcessSandbox

    return ProcessSandbox()


async def _play(
    match: Match, config: TournamentConfig, clocks: Clocks, store: TournamentStore, pool: WarmPool,
    service: Any, sandbox: Sandbox, replay_dir: Path | None, played_one: Callable[[], None],
) -> MatchResult:
    """Play ``match`` on its rotation's warm instances and store it as pending."""
    from referee.match import BotSeat, WarmSeat, run_match
    from referee.replay import write_replay

    match_config = MatchConfig(
        config.game, config.rules, match.seed, dict(config.rule_overrides), clocks, match_id=match.match_id
    )
    for attempt in range(2):
        instances = await pool.acquire_all(match.seats, match.rotation)
        try:
            seats: list[WarmSeat | BotSeat] = [
                WarmSeat(b.name, b.handle, b.token_file) if b is not None else BotSeat(pool.bots[name], name)
                for name, b in zip(match.seats, instances)
            ]
            played = await run_match(match_config, seats, service=service, sandbox=sandbox)
        finally:
            for bot in instances:
                if bot is not None:
                    pool.release(bot)
        if attempt or not _died_before_playing(played, instances):
            break
        # A warm instance that exited after its last match (found alive when it was taken, dead
        # before it connected) did not fail this match: it is replaced and the match played
        # again, so that whether its death is charged does not depend on timing.
    # From here to the group's commit nothing awaits: a Ctrl-C cannot split them.
    replay: str | None = None
    if replay_dir is not None:  # named per tournament: match ids repeat across tournaments
        path = (replay_dir / f"{replay_prefix(config)}-{match.match_id}.json").resolve()
        write_replay(path, played.replay)
        replay = str(path)
    result = to_result(match, played, replay)
    store.record_pending(result)
    played_one()
    return result


def _died_before_playing(played: PlayedMatch, instances: Sequence[WarmBot | None]) -> bool:
    """Whether a warm instance of this match is dead and its seat never played a decision."""
    return any(bot is not None and not bot.handle.is_alive() and played.seats[i].decisions == 0
               for i, bot in enumerate(instances))


def replay_prefix(config: TournamentConfig) -> str:
    """A short name for the tournament's replay files (a digest of its whole config, deal key
    included), so that two tournaments writing to one ``--replays`` folder never overwrite each
    other's matches."""
    text = json.dumps(config.to_json(), sort_keys=True)
    return "t" + hashlib.blake2b(text.encode(), digest_size=5).hexdigest()


def tournament_options(
    bots: Sequence[BotSpec], decision_ms: int | None, bank_ms: int | None, max_strikes: int | None,
    limits: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The runner's part of a config's options: clocks, the bots' code digests and the
    container limits asked for (``limits``: keys of
    :data:`~referee.sandbox.docker_limits.LIMIT_OPTIONS`, checked here)."""
    options: dict[str, Any] = {"bot_digests": {b.name: bot_digest(b.directory) for b in bots}}
    for name, value in (("decision_ms", decision_ms), ("bank_ms", bank_ms), ("max_strikes", max_strikes)):
        if value is not None:
            options[name] = value
    if limits:
        from referee.sandbox.docker_limits import limits_from_options

        limits_from_options(limits)  # raises SandboxError naming a bad value
        options.update(limits)
    return options

"""How much of a Docker tournament's wall time goes into starting bot containers (issue #4).

Plays a real tournament through the real runner (:func:`referee.tournament.runner.
run_tournament`: referee service, warm containers, match loop, SQLite store): by default the
sample random bot against the sample greedy one heads-up, ``classic``, 100 deal groups x 2
seat rotations = 200 matches. The sandbox is the real :class:`DockerSandbox` with one thin
addition: it notes when each ``start`` was called, when it returned (container created and
started) and when the bot was **ready**, i.e. when its first gRPC connection reached its
private socket (the referee's accepted socket, seen in ``/proc/net/unix`` by a watcher thread
polling every 10 ms while a start is unfinished; nothing is put between bot and referee).

Reports start-to-ready per container, the sum of those times over the wall time (``share``),
and, because starts overlap, the wall time during which at least one container was starting
over the wall time (``critical_share``: the starts' share of the critical path). Target: under
2 %. Bot images are built (or found) before the clock starts, as a second run would find them.

The tournament is played ``--runs`` times (default 3) and ``critical_share`` is the median over
the runs, each run's figure listed beside it: on a shared two-core machine one tournament of
instant bots varies by 20 % in length, and the share with it.

Prints one JSON object. Needs root and the Docker engine; builds the base image if missing.

    .venv/bin/python benchmarks/tournament_container_share.py [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from referee.sandbox.base import BotSpec, Listeners, SeatAccess
from referee.sandbox.docker_sandbox import DockerBotHandle, DockerSandbox, DockerSandboxConfig
from referee.tournament.config import TournamentConfig
from referee.tournament.runner import run_tournament, tournament_options
from referee.tournament.store import TournamentStore

REPO = Path(__file__).resolve().parents[1]
TARGET = 0.02
POLL_S = 0.01
"""Readiness polling period: fine enough for starts of about a second, light on a busy machine."""


@dataclasses.dataclass
class Start:
    """One container start: monotonic times of the call, its return, and the bot's first connection."""

    bot: str
    called: float
    returned: float
    socket: str
    """The private socket's path, without leading slashes (the kernel lists it as bound)."""
    pid: int
    """The container's init process on this host: its network namespace holds the accepted
    socket (a Unix connection's server end is made in the connecting side's namespace)."""
    ready: float | None = None


class ReadyWatcher:
    """Notes when a connection is first accepted on each watched socket: the container's
    ``/proc/<pid>/net/unix`` lists the referee's end under the listening path, state 03."""

    def __init__(self) -> None:
        self._waiting: dict[str, Start] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, name="ready-watcher", daemon=True)
        self._thread.start()

    def watch(self, start: Start) -> None:
        with self._lock:
            self._waiting[start.socket] = start
        self._wake.set()

    def _run(self) -> None:
        while not self._done:
            with self._lock:
                waiting = dict(self._waiting)
            if not waiting:
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            for start in waiting.values():
                if self._connected(start):
                    start.ready = time.monotonic()
                    with self._lock:
                        self._waiting.pop(start.socket, None)
            time.sleep(POLL_S)

    @staticmethod
    def _connected(start: Start) -> bool:
        try:
            with open(f"/proc/{start.pid}/net/unix", "rb") as table:
                lines = table.read().decode(errors="replace").splitlines()[1:]
        except OSError:
            return False
        for line in lines:
            fields = line.split()
            if len(fields) >= 8 and fields[5] == "03" and fields[7].lstrip("/") == start.socket:
                return True
        return False

    def close(self) -> None:
        self._done = True
        self._wake.set()
        self._thread.join()


class TimedDockerSandbox(DockerSandbox):
    """The real Docker sandbox, noting each start's call, return and readiness."""

    def __init__(self, listeners: Listeners, config: DockerSandboxConfig, watcher: ReadyWatcher) -> None:
        super().__init__(listeners, config)
        self.watcher = watcher
        self.starts: list[Start] = []

    async def start(self, bot: BotSpec, access: SeatAccess) -> DockerBotHandle:
        called = time.monotonic()
        handle = await super().start(bot, access)
        pid = int(handle.container.attrs.get("State", {}).get("Pid") or 0)
        record = Start(bot.name, called, time.monotonic(), str(handle.socket_path).lstrip("/"), pid)
        self.starts.append(record)
        self.watcher.watch(record)
        return handle


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of ``(begin, end)`` intervals: wall time during which any was open."""
    total, reach = 0.0, float("-inf")
    for begin, end in sorted(intervals):
        if end > reach:
            total += end - max(begin, reach)
            reach = end
    return total


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(v * 1000 for v in values)
    return {"p50": round(statistics.median(ordered), 1), "min": round(ordered[0], 1), "max": round(ordered[-1], 1)}


async def prepare_images(bots: list[BotSpec]) -> None:
    """Build (or find) the base and bot images, outside the timed run."""
    from referee.sandbox.probe import ProbeListeners

    sandbox = DockerSandbox(ProbeListeners(), DockerSandboxConfig(build_base=True))
    try:
        for bot in bots:
            await asyncio.to_thread(sandbox.image_for, bot)
    finally:
        await sandbox.close()


async def measure(bots: list[BotSpec], groups: int, concurrency: int, seed: int) -> dict[str, object]:
    await prepare_images(bots)
    config = TournamentConfig.make(
        game="crazy-eights", rules="classic", table_size=2, bots=[b.name for b in bots], seed=seed,
        deal_groups=groups, sandbox="docker", options=tournament_options(bots, None, None, None),
    )
    watcher = ReadyWatcher()
    boxes: list[TimedDockerSandbox] = []

    def make(listeners: Listeners) -> TimedDockerSandbox:
        boxes.append(TimedDockerSandbox(listeners, DockerSandboxConfig(), watcher))
        return boxes[-1]

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="talon-bench-") as tmp:
        with TournamentStore.open(Path(tmp) / "t.sqlite", config) as store:
            began = time.monotonic()
            played = await run_tournament(store, {b.name: b for b in bots}, concurrency=concurrency,
                                          make_sandbox=make)
            wall = time.monotonic() - began
            failures = sum(len(r.failures) for r in store.results())
    watcher.close()
    starts = [s for box in boxes for s in box.starts]
    ready = [s for s in starts if s.ready is not None]
    to_ready = [s.ready - s.called for s in ready if s.ready is not None]
    spans = [(s.called, s.ready) for s in ready if s.ready is not None]
    start_total = sum(to_ready)
    critical = union_seconds(spans)
    return {
        "benchmark": "tournament_container_share",
        "matches": played,
        "bots": [b.name for b in bots],
        "concurrency": concurrency,
        "failures": failures,
        "starts": len(starts),
        "starts_never_ready": len(starts) - len(ready),
        "start_to_ready_p50_ms": round(statistics.median(to_ready) * 1000, 1) if to_ready else None,
        "start_to_ready_ms": _ms(to_ready) if to_ready else None,
        "create_and_start_ms": _ms([s.returned - s.called for s in starts]) if starts else None,
        "start_seconds_total": round(start_total, 3),
        "start_critical_seconds": round(critical, 3),
        "tournament_seconds": round(wall, 2),
        "share": round(start_total / wall, 4),
        "critical_share": round(critical / wall, 4),
        "target": TARGET,
        "critical_share_under_target": critical / wall < TARGET,
        "load_average_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "timeline_ms": [
            {"bot": s.bot, "called": round((s.called - began) * 1000),
             "returned": round((s.returned - began) * 1000),
             "ready": None if s.ready is None else round((s.ready - began) * 1000)}
            for s in sorted(starts, key=lambda s: s.called)
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bots", type=Path, nargs="+",
                        default=[REPO / "sample_bots" / "random", REPO / "sample_bots" / "greedy"],
                        help="bot directories (default: sample_bots/random and sample_bots/greedy)")
    parser.add_argument("--deal-groups", type=int, default=100, help="deal groups (default 100: 200 matches)")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1,
                        help="matches at once (default: the number of cores, as talon tournament)")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    parser.add_argument("--runs", type=int, default=3,
                        help="tournaments to play; the shares reported are their medians (default 3)")
    args = parser.parse_args()
    if args.deal_groups < 1 or args.concurrency < 1 or args.runs < 1:
        parser.error("--deal-groups, --concurrency and --runs must be at least 1")
    bots = [BotSpec.from_dir(b) for b in args.bots]
    runs = [asyncio.run(measure(bots, args.deal_groups, args.concurrency, args.seed)) for _ in range(args.runs)]
    print(json.dumps(summarise(runs), indent=2))
    return 0


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One run as it is; several: the medians of the headline figures, each run's beside them,
    and every run's full report under ``each_run``."""
    if len(runs) == 1:
        return runs[0]

    def median(key: str) -> float | None:
        values = [run[key] for run in runs if run[key] is not None]
        return round(float(statistics.median(values)), 4) if values else None

    critical = float(statistics.median(run["critical_share"] for run in runs))
    return {
        "benchmark": "tournament_container_share",
        "runs": len(runs),
        "matches": runs[0]["matches"],
        "bots": runs[0]["bots"],
        "concurrency": runs[0]["concurrency"],
        "critical_share": round(critical, 4),
        "critical_share_per_run": [run["critical_share"] for run in runs],
        "target": TARGET,
        "critical_share_under_target": critical < TARGET,
        "share": median("share"),
        "start_critical_seconds_per_run": [run["start_critical_seconds"] for run in runs],
        "tournament_seconds_per_run": [run["tournament_seconds"] for run in runs],
        "start_to_ready_p50_ms": median("start_to_ready_p50_ms"),
        "starts_per_run": [run["starts"] for run in runs],
        "failures": sum(run["failures"] for run in runs),
        "each_run": runs,
    }


if __name__ == "__main__":
    sys.exit(main())

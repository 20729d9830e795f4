"""``talon bench referee``: the referee's per-decision cost against a bare gRPC ping-pong.

Measured in one run, interleaved round by round so that drift on a shared machine spreads over
both sides:

* sequential: one match of two warm ``random`` bots (real processes, Unix socket) against one
  bare stream. A decision's time is the wall time from one decision's end to the next, so it
  holds everything: building the view, the round trip through the SDK and the bot, checking and
  applying the action, recording it. The bare round trip writes a pre-encoded real request and
  reads the answer of a minimal client, over the same transport.
* alternating (context, not the target's baseline): the bare ping-pong taking turns between
  two client processes, as two seats do; it shows what the traffic pattern alone costs.
* concurrent: ``concurrency`` matches at once (two warm bots each) against as many bare
  streams; throughput is decisions per second over a fixed window. Context: as many bare
  *alternating* pairs at once (two client processes each, like the matches' two bots),
  ``bare_alternating_throughput_ratio`` and ``throughput_ratio_to_alternating``.
* silent bot: a bot that never answers (``misbehaving/mute``); how long after its deadline the
  referee has taken the decision with the fallback player (target: p99 under 5 ms).

The result is one JSON object; ``ratio`` (the target's measure) is the referee's p50 over the
bare p50. ``request_to_answer_ratio`` is context: the same with only the request's round trip
(request written to answer read, the bot's think time as the match records it), which leaves
out the referee's own work between two requests and so shows how much of ``ratio`` that work is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.bench_bare import BareServer
from referee.match import BotSeat, WarmSeat, run_match, write_token_file
from referee.match_types import Clocks, MatchConfig, MatchResult
from referee.sandbox.base import BotSpec, SeatAccess
from referee.sandbox.process import ProcessSandbox
from referee.server import RefereeService, ServiceConfig

REPO = Path(__file__).resolve().parent.parent
WINDOW_S = 3.0
WARMUP_S = 1.0
MUTE_DECISION_MS = 20


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50_us": round(pick(0.5) * 1e6, 1), "p99_us": round(pick(0.99) * 1e6, 1), "n": len(ordered)}


def _rate(series: Sequence[Sequence[float]], t0: float, t1: float) -> float:
    """Events per second in the window [t0, t1), over every series of event times."""
    return sum(1 for times in series for t in times if t0 <= t < t1) / (t1 - t0)


def _gaps(clock: tuple[float, ...] | list[float]) -> list[float]:
    return [b - a for a, b in zip(clock, clock[1:])]


class _Bench:
    def __init__(self, root: Path, concurrency: int) -> None:
        self.root = root
        self.concurrency = concurrency
        self.sandbox = ProcessSandbox()
        self.service = RefereeService(ServiceConfig(bot_unix=root / "r.sock"))
        self.pairs: list[list[WarmSeat]] = []
        self.bare: BareServer | None = None
        self.clients: list[asyncio.subprocess.Process] = []
        self.seed = 0

    async def start(self) -> None:
        await self.service.start()
        spec = BotSpec.from_dir(REPO / "sample_bots" / "random")
        for lane in range(self.concurrency):
            pair = []
            for seat in range(2):
                token_file = self.root / f"t{lane}-{seat}"
                handle = await self.sandbox.start(spec, SeatAccess(self.service.bot_target, token_file=token_file))
                pair.append(WarmSeat(f"random{lane}.{seat}", handle, token_file))
            self.pairs.append(pair)
        sample = await self._match(self.pairs[0])
        self.bare = BareServer(self.root / "b.sock", await self._sample_request(sample))
        target = await self.bare.start()
        for _ in range(2 * self.concurrency):  # two per lane: the alternating case uses them all
            self.clients.append(await asyncio.create_subprocess_exec(
                sys.executable, "-m", "referee.bench_bare", target, start_new_session=True))
        while len(self.bare.streams) < 2 * self.concurrency:
            await asyncio.sleep(0.05)

    async def _sample_request(self, result: MatchResult) -> bytes:
        """A real request from the middle of a real match, encoded once: the view, the legal
        actions and the public events since that seat's previous request, as the referee sent."""
        from referee.games import make_rules, new_match
        from referee.match_wire import EventCache, GameCodec

        state = new_match("crazy-eights", make_rules("crazy-eights", "classic"), 2, result.seed)
        events, sent = EventCache(), [0, 0]
        actions = result.replay["actions"]
        for record in actions[: len(actions) // 2]:
            sent[state.current_player] = len(events.upto(state))
            state.apply(record["action"])
        seat = state.current_player
        codec = GameCodec("crazy-eights")
        message = codec.request(1, len(actions) // 2, 1000, 60000, state.view(seat), state.legal_actions(), True,
                                events.upto(state)[sent[seat]:])
        return message.SerializeToString()

    async def _match(self, pair: list[WarmSeat]) -> MatchResult:
        self.seed += 1
        return await run_match(MatchConfig("crazy-eights", "classic", self.seed), pair, service=self.service)

    def _bare(self) -> BareServer:
        if self.bare is None:
            raise RuntimeError("the bare server is not started: call start() first")
        return self.bare

    async def referee_sequential(self, decisions: int) -> tuple[list[float], list[float]]:
        """Per decision: the whole cycle (one decision's end to the next), and the request's
        round trip alone (request written to answer read, as the match records it)."""
        gaps: list[float] = []
        trips: list[float] = []
        while len(gaps) < decisions:
            result = await self._match(self.pairs[0])
            gaps.extend(_gaps(result.decision_clock))
            trips.extend(a["ms"] / 1000 for a in result.replay["actions"] if a["by"] == "bot")
        return gaps, trips

    async def bare_sequential(self, decisions: int) -> list[float]:
        bare = self._bare()
        ends = (await bare.run(1, decisions + 1))[0]
        return _gaps(ends)

    async def bare_alternating(self, decisions: int) -> list[float]:
        bare = self._bare()
        return _gaps((await bare.alternate(decisions + 2))[0])

    async def referee_concurrent(self) -> float:
        stop = asyncio.Event()
        clocks: list[tuple[float, ...]] = []

        async def lane(pair: list[WarmSeat]) -> None:
            while not stop.is_set():
                clocks.append((await self._match(pair)).decision_clock)

        lanes = [asyncio.ensure_future(lane(p)) for p in self.pairs]
        await asyncio.sleep(WARMUP_S)
        t0 = time.perf_counter()
        await asyncio.sleep(WINDOW_S)
        t1 = time.perf_counter()
        stop.set()
        await asyncio.gather(*lanes)
        return _rate(clocks, t0, t1)

    async def bare_concurrent(self) -> float:
        start = time.perf_counter()
        ends = await self._bare().run(self.concurrency, 0, WARMUP_S + WINDOW_S)
        return _rate(ends, start + WARMUP_S, start + WARMUP_S + WINDOW_S)

    async def bare_alternating_concurrent(self) -> float:
        """Round trips per second with ``concurrency`` alternating pairs at once (two client
        processes per lane, as the referee's matches have two bots)."""
        start = time.perf_counter()
        ends = await self._bare().alternate(0, self.concurrency, WARMUP_S + WINDOW_S)
        return _rate(ends, start + WARMUP_S, start + WARMUP_S + WINDOW_S)

    async def silent_bot(self, timeouts: int) -> dict[str, Any]:
        clocks = Clocks(decision_ms=MUTE_DECISION_MS, bank_ms=0, max_strikes=1_000_000)
        mute = BotSpec.from_dir(REPO / "sample_bots" / "misbehaving" / "mute")
        late: list[float] = []
        while len(late) < timeouts:
            self.seed += 1
            result = await run_match(MatchConfig("crazy-eights", "classic", self.seed, clocks=clocks),
                                     [BotSeat(mute), self.pairs[0][1]], service=self.service, sandbox=self.sandbox)
            actions = result.replay["actions"]
            clock = result.decision_clock
            for i in range(1, len(actions)):
                if actions[i]["seat"] == 0 and actions[i]["by"] == "fallback":
                    late.append(clock[i] - clock[i - 1] - MUTE_DECISION_MS / 1000)
        q = _quantiles(late)
        return {"deadline_ms": MUTE_DECISION_MS, "late_p50_ms": round(q["p50_us"] / 1000, 3),
                "late_p99_ms": round(q["p99_us"] / 1000, 3), "timeouts": q["n"],
                "target_p99_ms": 5.0, "meets_target": q["p99_us"] / 1000 <= 5.0}

    async def close(self) -> None:
        for pair in self.pairs:
            for seat in pair:
                write_token_file(seat.token_file, "exit")
        for client in self.clients:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(client.pid, signal.SIGKILL)
            await client.wait()
        if self.bare is not None:
            await self.bare.stop()
        await self.sandbox.close()
        await self.service.stop(1.0)


async def run_benchmark(decisions: int, concurrency: int, rounds: int) -> dict[str, Any]:
    """Run every case (see the module docstring) and return the JSON-ready summary.

    The shared machine drifts, so the cases are paired tightly: each referee match is followed
    by as many bare round trips (single stream, then alternating), and each ratio is taken
    within its pair; the reported ratios are the medians over pairs.
    """
    import grpc

    root = Path(tempfile.mkdtemp(prefix="tlb-"))
    bench = _Bench(root, concurrency)
    pairs: list[tuple[dict[str, float], dict[str, float], dict[str, float]]] = []
    pooled: tuple[list[float], list[float], list[float]] = ([], [], [])
    trips: list[float] = []
    conc: list[tuple[float, float, float]] = []
    try:
        await bench.start()
        silent = await bench.silent_bot(200)  # first, while no other case loads the machine
        while len(pooled[0]) < decisions:
            ref, trip = await bench.referee_sequential(1)
            trips.extend(trip)
            one = await bench.bare_sequential(len(ref))
            two = await bench.bare_alternating(len(ref))
            pairs.append((_quantiles(ref), _quantiles(one), _quantiles(two)))
            for bucket, values in zip(pooled, (ref, one, two)):
                bucket.extend(values)
        for _ in range(rounds):
            conc.append((await bench.referee_concurrent(), await bench.bare_concurrent(),
                         await bench.bare_alternating_concurrent()))
    finally:
        await bench.close()
        shutil.rmtree(root, ignore_errors=True)
    ref_q, one_q, two_q = (_quantiles(values) for values in pooled)
    trip_q = _quantiles(trips)
    median = statistics.median
    referee = {"p50_us": ref_q["p50_us"], "p99_us": ref_q["p99_us"], "decisions": ref_q["n"],
               "decisions_per_s": round(1e6 / ref_q["p50_us"], 1),
               "request_to_answer_p50_us": trip_q["p50_us"], "request_to_answer_p99_us": trip_q["p99_us"],
               "concurrent_decisions_per_s": round(median(c[0] for c in conc), 1)}
    bare = {"p50_us": one_q["p50_us"], "p99_us": one_q["p99_us"], "round_trips": one_q["n"],
            "round_trips_per_s": round(1e6 / one_q["p50_us"], 1),
            "concurrent_round_trips_per_s": round(median(c[1] for c in conc), 1)}
    return {
        "benchmark": "referee",
        "transport": "grpc.aio bidirectional stream over a Unix socket",
        "game": "crazy-eights classic, 2 seats, sample_bots/random (warm processes)",
        "referee": referee,
        "bare": bare,
        "ratio": round(median(r["p50_us"] / b["p50_us"] for r, b, _ in pairs), 3),
        "ratio_target": 1.2,
        "ratio_of_pooled_p50": round(ref_q["p50_us"] / one_q["p50_us"], 3),
        "request_to_answer_ratio": round(trip_q["p50_us"] / one_q["p50_us"], 3),
        "bare_alternating": {"p50_us": two_q["p50_us"], "p99_us": two_q["p99_us"]},
        "ratio_to_alternating": round(median(r["p50_us"] / a["p50_us"] for r, _, a in pairs), 3),
        "concurrency": concurrency,
        "throughput_ratio": round(median(r / b for r, b, _ in conc), 3),
        "throughput_ratio_target": 0.8,
        "bare_alternating_concurrent_per_s": round(median(c[2] for c in conc), 1),
        "bare_alternating_throughput_ratio": round(median(a / b for _, b, a in conc), 3),
        "throughput_ratio_to_alternating": round(median(r / a for r, _, a in conc), 3),
        "silent_bot": silent,
        "pairs": len(pairs),
        "concurrent_rounds": [{"referee_per_s": round(r, 1), "bare_per_s": round(b, 1),
                               "bare_alternating_per_s": round(a, 1)} for r, b, a in conc],
        "env": {"python": platform.python_version(), "grpcio": grpc.__version__, "cpus": os.cpu_count(),
                "window_s": WINDOW_S, "loadavg": [round(x, 2) for x in os.getloadavg()]},
    }

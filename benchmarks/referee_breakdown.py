"""Where a referee decision's time and CPU go: the figures behind docs/performance.md, "Referee".

Three parts, one JSON object:

* ``tight_loop``: the referee's own work per decision with no gRPC, no bots and no waiting
  (random legal actions, Crazy Eights ``classic``, two seats): events encoded, legal actions,
  view, request built, serialised, the answer decoded, ``apply``. Microseconds per decision.
* ``cpu_per_decision``: CPU time (user + system, all threads, from ``/proc``) per decision of
  each process, while the referee plays one match at a time (``sequential``) and 16 at once
  (``concurrent``), beside the bare ping-pong's server and client processes in the same run,
  with how busy the machine was.
* ``split`` (with ``--split N``): N benchmark processes each running 16/N matches at once,
  started together, their decisions per second summed, against one process running 16: does one
  referee process per core help on this machine?

    .venv/bin/python benchmarks/referee_breakdown.py [--split 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from referee.bench_referee import _Bench  # noqa: E402
from referee.games import make_rules, new_match  # noqa: E402
from referee.match_wire import EventCache, GameCodec  # noqa: E402
from talon_sdk._proto.talon.v1 import game_pb2 as gpb  # noqa: E402

STEPS = ("events", "legal", "view", "request", "serialise", "decode", "apply")


def tight_loop(matches: int) -> dict[str, Any]:
    """The referee's per-decision steps, timed in a loop with nothing else running."""
    rules, codec, rng = make_rules("crazy-eights", "classic"), GameCodec("crazy-eights"), random.Random(1)
    totals = dict.fromkeys(STEPS, 0.0)
    clock, decisions = time.perf_counter, 0
    for seed in range(matches):
        state, events, sent = new_match("crazy-eights", rules, 2, seed), EventCache(), [0, 0]
        while not state.is_over:
            seat = state.current_player
            t0 = clock()
            encoded = events.upto(state)
            new, sent[seat] = encoded[sent[seat]:], len(encoded)
            t1 = clock()
            legal = state.legal_actions()
            t2 = clock()
            view = state.view(seat)
            t3 = clock()
            request = codec.request(1, decisions, 1000, 60000, view, legal, True, new)
            t4 = clock()
            request.SerializeToString()
            answer = gpb.Action(crazy_eights=rng.choice(legal))
            t5 = clock()
            action = codec.decode(answer, state)
            t6 = clock()
            state.apply(action)
            t7 = clock()
            for step, (a, b) in zip(STEPS, ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t5, t6), (t6, t7))):
                totals[step] += b - a
            decisions += 1
    per = {step: round(total / decisions * 1e6, 2) for step, total in totals.items()}
    return {"decisions": decisions, "us_per_decision": per, "total_us": round(sum(per.values()), 2)}


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _idle() -> tuple[int, int]:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return sum(values), values[3] + values[4]


def _busy(before: tuple[int, int], after: tuple[int, int]) -> float:
    return round(1 - (after[1] - before[1]) / max(1, after[0] - before[0]), 3)


async def cpu_per_decision(decisions: int) -> dict[str, Any]:
    """CPU per decision of every process, sequential and with 16 matches at once."""
    bench = _Bench(Path(tempfile.mkdtemp(prefix="tlk-")), 16)
    await bench.start()
    try:
        me = os.getpid()
        pair = [seat.handle.pid for seat in bench.pairs[0]]  # type: ignore[attr-defined]
        bots = [seat.handle.pid for lane in bench.pairs for seat in lane]  # type: ignore[attr-defined]
        clients = [client.pid for client in bench.clients]

        def total(pids: list[int]) -> float:
            return sum(_cpu(p) for p in pids)

        c0 = (_cpu(me), total(pair))
        gaps, _ = await bench.referee_sequential(decisions)
        c1 = (_cpu(me), total(pair), total(clients))
        ends = await bench.bare_sequential(len(gaps))  # on one of the clients: the others idle
        c2 = (_cpu(me), total(clients))
        sequential = {
            "referee_process_us": round((c1[0] - c0[0]) / len(gaps) * 1e6),
            "two_bots_us": round((c1[1] - c0[1]) / len(gaps) * 1e6),
            "bare_server_us": round((c2[0] - c1[0]) / len(ends) * 1e6),
            "bare_client_us": round((c2[1] - c1[2]) / len(ends) * 1e6),
        }
        s0, p0, b0, t0 = _idle(), _cpu(me), total(bots), time.perf_counter()
        rate = await bench.referee_concurrent()
        s1, p1, b1, k1, t1 = _idle(), _cpu(me), total(bots), total(clients), time.perf_counter()
        bare_rate = await bench.bare_concurrent()
        s2, p2, k2, t2 = _idle(), _cpu(me), total(clients), time.perf_counter()
        n_ref, n_bare = rate * (t1 - t0), bare_rate * (t2 - t1)
        concurrent = {
            "referee_decisions_per_s": round(rate), "bare_round_trips_per_s": round(bare_rate),
            "referee_process_us": round((p1 - p0) / n_ref * 1e6), "bots_us": round((b1 - b0) / n_ref * 1e6),
            "bare_server_us": round((p2 - p1) / n_bare * 1e6), "bare_clients_us": round((k2 - k1) / n_bare * 1e6),
            "machine_busy_referee": _busy(s0, s1), "machine_busy_bare": _busy(s1, s2),
            "note": "decisions counted over the whole call (1 s warm-up + 3 s window) at the window's rate",
        }
        return {"sequential": sequential, "concurrent": concurrent}
    finally:
        await bench.close()


async def _lanes(matches: int, start_at: float) -> list[float]:
    bench = _Bench(Path(tempfile.mkdtemp(prefix="tlk-")), matches)
    await bench.start()
    try:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        return [await bench.referee_concurrent() for _ in range(3)]
    finally:
        await bench.close()


def split(processes: int) -> dict[str, Any]:
    """16 matches in ``processes`` referee processes started together, against one process."""
    def run(n: int) -> list[list[float]]:
        start_at = time.time() + 15
        procs = [subprocess.Popen([sys.executable, __file__, "--lanes", str(16 // n), "--start-at", str(start_at)],
                                  stdout=subprocess.PIPE, text=True) for _ in range(n)]
        return [json.loads(p.communicate()[0]) for p in procs]

    many, one = run(processes), run(1)
    return {"processes": processes, "decisions_per_s_summed": [round(sum(r)) for r in zip(*many)],
            "one_process": [round(r) for r in one[0]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=300, help="matches in the tight loop")
    parser.add_argument("--decisions", type=int, default=6000, help="sequential referee decisions")
    parser.add_argument("--split", type=int, default=0, help="also compare N referee processes with one")
    parser.add_argument("--lanes", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.lanes:
        print(json.dumps(asyncio.run(_lanes(args.lanes, args.start_at))))
        return
    out: dict[str, Any] = {"benchmark": "referee_breakdown", "tight_loop": tight_loop(args.matches),
                           "cpu_per_decision": asyncio.run(cpu_per_decision(args.decisions))}
    if args.split:
        out["split"] = split(args.split)
    out["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

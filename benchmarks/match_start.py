"""How long a match takes to get going with warm bots: from ``run_match`` being called to its
first decision, and from its last decision to ``run_match`` returning.

Two warm ``sample_bots/random`` processes (the SDK, token file) play Crazy Eights ``classic``
through a real referee service on a Unix socket, one match after another, as a tournament
worker does (``referee.bench_referee``'s set-up, one lane). What the start holds: the match's
tokens written to the bots' token files, each bot noticing its token (the SDK polls), opening
its stream and saying hello, the referee accepting both, the welcome, the first request. Prints
one JSON object (milliseconds).

    .venv/bin/python benchmarks/match_start.py [--matches 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from referee.bench_referee import _Bench  # noqa: E402


async def measure(matches: int) -> dict[str, Any]:
    bench = _Bench(Path(tempfile.mkdtemp(prefix="tlm-")), 1)
    await bench.start()
    starts: list[float] = []
    ends: list[float] = []
    decisions: list[int] = []
    try:
        for _ in range(matches):
            called = time.perf_counter()
            result = await bench._match(bench.pairs[0])
            returned = time.perf_counter()
            clock = result.decision_clock
            starts.append(clock[0] - called)
            ends.append(returned - clock[-1])
            decisions.append(len(clock))
    finally:
        await bench.close()

    def ms(values: list[float]) -> dict[str, float]:
        ordered = sorted(v * 1000 for v in values)
        return {"p50": round(statistics.median(ordered), 2), "min": round(ordered[0], 2), "max": round(ordered[-1], 2)}

    return {"benchmark": "match_start", "matches": matches, "decisions_per_match_p50": statistics.median(decisions),
            "call_to_first_decision_ms": ms(starts), "last_decision_to_return_ms": ms(ends)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=20, help="matches to play (default 20)")
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    print(json.dumps(asyncio.run(measure(args.matches)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

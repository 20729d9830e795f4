"""Referee latency benchmark: ``python benchmarks/referee_latency.py`` = ``talon bench referee``.

See :mod:`referee.bench_referee` for what is measured; prints one JSON object.
"""

import asyncio
import json
import sys

from referee.bench_referee import run_benchmark

if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:4]]
    decisions, concurrency, rounds = (args + [3000, 16, 3][len(args):])[:3]
    print(json.dumps(asyncio.run(run_benchmark(decisions, concurrency, rounds)), indent=1))

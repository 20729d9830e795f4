"""How long a bot container takes from "create" until the bot connects to its referee socket.

Per start: ``containers.create`` + ``start`` with every sandbox setting, then the bot's
Python starts, imports grpc and the SDK, reads its address and token and opens its gRPC
connection; "ready" is when the first bytes (the HTTP/2 preface) arrive on the socket. Then
the container is removed, which is timed as the stop cost. ``sdk_import_ms`` is the bot's own
part, timed inside fresh containers: importing the SDK. The sample random bot is used, so
this is what a match pays per seat when bots are not kept warm (warm bots pay it once per
tournament and then only a token-file rewrite per match).

Prints one JSON object. Needs root and the Docker engine; builds the base image if missing.

    .venv/bin/python benchmarks/container_start.py --starts 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import docker

from referee.sandbox.base import BotSpec, SeatAccess
from referee.sandbox.docker_sandbox import DockerSandbox, DockerSandboxConfig
from referee.sandbox.probe import ProbeListeners

REPO = Path(__file__).resolve().parents[1]


def _summary(values_ms: list[float]) -> dict[str, float]:
    ordered = sorted(values_ms)
    deciles = statistics.quantiles(ordered, n=10, method="inclusive")
    return {"p50": round(statistics.median(ordered), 1), "p90": round(deciles[8], 1),
            "min": round(ordered[0], 1), "max": round(ordered[-1], 1)}


async def measure(bot: BotSpec, starts: int) -> dict[str, object]:
    listeners = ProbeListeners()
    sandbox = DockerSandbox(listeners, DockerSandboxConfig(build_base=True), docker.from_env())
    image = await asyncio.to_thread(sandbox.image_for, bot)
    ready, created, stopped, grpc_seen = [], [], [], 0
    try:
        for index in range(starts + 1):  # the first start warms the engine's caches
            handle = await sandbox.start_image(image, bot, SeatAccess(address="", token="bench"))
            started = time.monotonic()
            connection = await listeners.wait_connected(handle.socket_path, 60)
            if connection is None:
                raise SystemExit(f"the bot did not connect within 60 s:\n{handle.logs()}")
            before_stop = time.monotonic()
            await handle.stop()
            if index == 0:
                continue
            created.append((started - handle.started_at) * 1000)
            ready.append((connection.at - handle.started_at) * 1000)
            stopped.append((time.monotonic() - before_stop) * 1000)
            grpc_seen += connection.speaks_http2
    finally:
        await sandbox.close()
    imports = await asyncio.to_thread(_import_times, sandbox, bot, image, starts)
    return {
        "benchmark": "container_start",
        "bot": bot.name,
        "image": image,
        "starts": starts,
        "start_to_ready_ms": _summary(ready),
        "create_and_start_ms": _summary(created),
        "stop_ms": _summary(stopped),
        "start_plus_stop_p50_ms": round(statistics.median(ready) + statistics.median(stopped), 1),
        "connections_speaking_grpc": grpc_seen,
        "sdk_import_ms": _summary(imports),
    }


_IMPORT_PROBE = ("import time; t = time.perf_counter(); import talon_sdk.client; "
                 "print(round((time.perf_counter() - t) * 1000, 1))")


def _import_times(sandbox: DockerSandbox, bot: BotSpec, image: str, runs: int) -> list[float]:
    """How long the bot's Python takes to import the SDK (asyncio, grpc, protobuf, the generated
    modules) in a fresh container of ``image`` with the sandbox's limits: the part of a start
    that is the bot's own, measured inside so the engine's share is left out. The containers
    carry the sandbox's labels, so one left by an interrupted run is swept like the others."""
    times = []
    for _ in range(runs):
        container = sandbox.client.containers.create(image, command=["python3", "-c", _IMPORT_PROBE],
                                                     labels=sandbox.labels(bot),
                                                     **sandbox.config.limits.create_kwargs())
        try:
            container.start()
            container.wait(timeout=60)
            times.append(float(container.logs(stdout=True, stderr=False).decode().split()[-1]))
        finally:
            container.remove(force=True)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=10, help="timed starts (default 10)")
    parser.add_argument("--bot", type=Path, default=REPO / "sample_bots" / "random",
                        help="bot directory (default: sample_bots/random)")
    args = parser.parse_args()
    if args.starts < 2:
        parser.error("--starts must be at least 2 for percentiles")
    print(json.dumps(asyncio.run(measure(BotSpec.from_dir(args.bot), args.starts)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

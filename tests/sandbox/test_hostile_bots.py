"""The hostile bots that need no referee, run in the real sandbox: each must be stopped.

(The ones that abuse the referee protocol are run against the real referee service in
test_hostile_matches.py.)"""

from __future__ import annotations

import asyncio
import time

import docker
from docker.models.containers import Container
from sandbox_helpers import HOSTILE
from sandbox_helpers import SMALL, escapes, probe_sandbox, result_of

from referee.sandbox.base import BotSpec, SeatAccess
from referee.sandbox.docker_sandbox import DockerBotHandle, DockerSandbox, ExitStatus


async def _run_to_end(sandbox: DockerSandbox, name: str,
                      timeout: float = 60) -> tuple[DockerBotHandle, ExitStatus, str]:
    handle = await sandbox.start(BotSpec.from_dir(HOSTILE / name), SeatAccess(address="",
                                                                             token="tok"))
    status = await handle.wait_exit(timeout)
    return handle, status, handle.logs()


def test_no_network_no_host_files(docker_client: docker.DockerClient, base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image, SMALL) as (sandbox, _):
            for name in ("net_escape", "host_files"):
                _, status, logs = await _run_to_end(sandbox, name)
                assert status.exit_code == 0, logs
                assert escapes(logs) == [], logs
                result = result_of(logs)
                assert result and set(result.values()) == {"blocked"}, logs

    asyncio.run(scenario())


def test_fork_bomb_is_held_by_the_pids_limit(docker_client: docker.DockerClient,
                                             base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image, SMALL) as (sandbox, _):
            _, status, logs = await _run_to_end(sandbox, "fork_bomb")
            result = result_of(logs)
            assert result["fork bomb"] == "blocked" and result["refused"] > 0, logs
            assert result["limit"] == str(SMALL.pids)
            assert 0 < result["peak"] <= SMALL.pids
            assert status.exit_code == 0

    asyncio.run(scenario())


def test_memory_hog_is_oom_killed(docker_client: docker.DockerClient, base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image, SMALL) as (sandbox, _):
            handle, status, logs = await _run_to_end(sandbox, "memory_hog")
            assert not status.running and status.oom_killed, (status, logs)
            assert not handle.is_alive()
            assert status.exit_code == 137
            assert escapes(logs) == []
            held = [int(line.split()[1]) for line in logs.splitlines()
                    if line.startswith("holding")]
            assert held and max(held) < SMALL.memory_bytes // 2**20

    asyncio.run(scenario())


def test_disk_fill_stops_at_the_tmpfs_size(docker_client: docker.DockerClient,
                                           base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image, SMALL) as (sandbox, _):
            _, status, logs = await _run_to_end(sandbox, "disk_fill")
            assert status.exit_code == 0 and escapes(logs) == [], logs
            result = result_of(logs)
            assert result["tmp MiB"] <= SMALL.tmpfs_bytes // 2**20
            assert result["shm MiB"] <= SMALL.shm_bytes // 2**20
            assert all(v == "blocked" for k, v in result.items() if k.startswith("write "))

    asyncio.run(scenario())


def _cpu_ns(container: Container) -> int:
    stats = container.stats(stream=False)
    if not isinstance(stats, dict):
        raise TypeError("stats(stream=False) returns one sample")
    return int(stats["cpu_stats"]["cpu_usage"]["total_usage"])


def test_cpu_spin_is_held_to_its_quota(docker_client: docker.DockerClient,
                                       base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image, SMALL) as (sandbox, _):
            handle = await sandbox.start(BotSpec.from_dir(HOSTILE / "cpu_spin"),
                                         SeatAccess(address="", token="tok"))
            await asyncio.sleep(1.5)  # let the spinners start
            before, t0 = await asyncio.to_thread(_cpu_ns, handle.container), time.monotonic()
            await asyncio.sleep(3)
            after, t1 = await asyncio.to_thread(_cpu_ns, handle.container), time.monotonic()
            cores = (after - before) / 1e9 / (t1 - t0)
            assert cores <= SMALL.cpus * 1.25, f"used {cores:.2f} cores"
            assert cores >= SMALL.cpus * 0.5, f"used only {cores:.2f} cores: not spinning?"
            assert handle.is_alive()
            await handle.stop()
            assert not handle.is_alive()

    asyncio.run(scenario())

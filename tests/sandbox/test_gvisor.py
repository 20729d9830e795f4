"""Bots under gVisor (``--bot-runtime runsc``): a whole match through the real referee, and the
network escapes still blocked. ``scripts/enable-gvisor`` registers the runtime
(``scripts/test`` runs it); without it these tests skip, or fail where Docker is required."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import tempfile
from pathlib import Path

import docker
import pytest
from sandbox_helpers import HOSTILE, REPO, SMALL, escapes, probe_sandbox, result_of

from referee.match import BotSeat, run_match
from referee.match_types import MatchConfig
from referee.sandbox.base import BotSpec, SeatAccess
from referee.sandbox.docker_limits import DockerLimits
from referee.sandbox.docker_sandbox import DockerBotHandle, DockerSandbox, DockerSandboxConfig
from referee.server import RefereeService, ServiceConfig


@pytest.fixture(scope="module")
def runsc(docker_client: docker.DockerClient) -> str:
    if "runsc" not in (docker_client.info().get("Runtimes") or {}):
        reason = "the engine has no runsc runtime (scripts/enable-gvisor registers it)"
        if os.environ.get("TALON_REQUIRE_DOCKER") == "1":
            pytest.fail(f"TALON_REQUIRE_DOCKER=1 but {reason}")
        pytest.skip(reason)
    return "runsc"


class RuntimeRecordingSandbox(DockerSandbox):
    """Notes the runtime the engine gave each container, read while it runs."""

    runtimes: list[str]

    async def start(self, bot: BotSpec, access: SeatAccess) -> DockerBotHandle:
        handle = await super().start(bot, access)
        self.runtimes = getattr(self, "runtimes", []) + [handle.container.attrs["HostConfig"]["Runtime"]]
        return handle


def test_sample_bots_play_a_match_under_gvisor(docker_client: docker.DockerClient, base_image: str,
                                                runsc: str) -> None:
    async def scenario() -> None:
        with tempfile.TemporaryDirectory(prefix="tlg-") as tmp:
            async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
                sandbox = RuntimeRecordingSandbox(service, DockerSandboxConfig(
                    limits=DockerLimits(runtime=runsc), base_image=base_image), docker_client)
                try:
                    seats = [BotSeat(BotSpec.from_dir(REPO / "sample_bots" / n)) for n in ("random", "greedy")]
                    result = await run_match(MatchConfig("crazy-eights", "classic", 3), seats,
                                             service=service, sandbox=sandbox)
                finally:
                    await sandbox.close()
        assert sandbox.runtimes == ["runsc", "runsc"]
        assert result.failures == () and result.decisions > 0
        assert sorted(s.place for s in result.seats) == [1, 2]

    asyncio.run(scenario())


def test_memory_and_disk_caps_hold_under_gvisor(docker_client: docker.DockerClient, base_image: str,
                                                runsc: str) -> None:
    """The engine's cgroup and tmpfs caps apply to the gVisor sandbox as a whole: the memory hog
    is OOM-killed below the cap, the disk filler stops at the tmpfs sizes. (``fork_bomb`` is not
    run here: it checks its own limit in ``/sys/fs/cgroup``, which gVisor does not show.)"""

    async def scenario() -> None:
        limits = dataclasses.replace(SMALL, runtime=runsc)
        async with probe_sandbox(docker_client, base_image, limits) as (sandbox, _):
            hog = await sandbox.start(BotSpec.from_dir(HOSTILE / "memory_hog"), SeatAccess(address="", token="t"))
            status = await hog.wait_exit(90)
            logs = hog.logs()
            assert status.oom_killed and status.exit_code == 137, (status, logs)
            held = [int(line.split()[1]) for line in logs.splitlines() if line.startswith("holding")]
            assert held and max(held) < limits.memory_bytes // 2**20
            fill = await sandbox.start(BotSpec.from_dir(HOSTILE / "disk_fill"), SeatAccess(address="", token="t"))
            status = await fill.wait_exit(90)
            logs = fill.logs()
            assert status.exit_code == 0 and escapes(logs) == [], logs
            result = result_of(logs)
            assert result["tmp MiB"] <= limits.tmpfs_bytes // 2**20 and result["shm MiB"] <= limits.shm_bytes // 2**20

    asyncio.run(scenario())


def test_no_network_under_gvisor(docker_client: docker.DockerClient, base_image: str, runsc: str) -> None:
    """(``host_files`` is not run here: under gVisor its ``unshare(CLONE_NEWUSER)`` succeeds,
    inside gVisor's own kernel rather than the host's, and the bot dies right after it; see
    docs/sandbox.md.)"""

    async def scenario() -> None:
        limits = dataclasses.replace(SMALL, runtime=runsc)
        async with probe_sandbox(docker_client, base_image, limits) as (sandbox, _):
            for name in ("net_escape",):
                handle = await sandbox.start(BotSpec.from_dir(HOSTILE / name), SeatAccess(address="", token="t"))
                assert handle.container.attrs["HostConfig"]["Runtime"] == "runsc"
                status = await handle.wait_exit(60)
                logs = handle.logs()
                assert status.exit_code == 0 and escapes(logs) == [], logs
                assert set(result_of(logs).values()) == {"blocked"}, logs

    asyncio.run(scenario())

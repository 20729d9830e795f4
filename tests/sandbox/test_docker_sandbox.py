"""The Docker sandbox against the real engine: every container setting as the engine reports
it, what a bot can and cannot do from inside, and that nothing is left after stop or crash."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import docker
import pytest
from sandbox_helpers import PROBE
from sandbox_helpers import probe_sandbox

from referee.sandbox.base import BotSpec, SandboxError, SeatAccess
from referee.sandbox.docker_limits import GIB, MIB
from referee.sandbox.docker_sandbox import (
    LABEL_BOT, LABEL_MANAGED, LABEL_OWNER, LABEL_RUN, DockerBotHandle, DockerSandbox,
    DockerSandboxConfig,
)
from referee.sandbox.probe import ProbeListeners

PROBE_BOT = BotSpec.from_dir(PROBE)


def _exec(handle: DockerBotHandle, *command: str) -> tuple[int, str]:
    code, output = handle.container.exec_run(list(command))
    if not isinstance(output, bytes) or code is None:
        raise TypeError("exec_run without stream or detach returns an exit code and bytes")
    return int(code), output.decode(errors="replace").strip()


def test_container_settings_and_inside_view(docker_client: docker.DockerClient,
                                            base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image) as (sandbox, listeners):
            handle = await sandbox.start(PROBE_BOT, SeatAccess(address="", token="tok-1"))
            connection = await listeners.wait_connected(handle.socket_path, 30)
            assert connection is not None, handle.logs()
            assert connection.first_bytes == b"probe tok-1\n"
            attrs = handle.container.attrs
            host, config = attrs["HostConfig"], attrs["Config"]
            assert host["NetworkMode"] == "none" and config["NetworkDisabled"] is True
            assert attrs["NetworkSettings"]["Networks"] == {}  # no libnetwork endpoint at all
            pid = attrs["State"]["Pid"]  # yet a network namespace of its own (abstract sockets)
            assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
            assert host["IpcMode"] == "private" and host["PidMode"] == ""  # own namespaces
            assert host["ReadonlyRootfs"] is True
            assert host["CapDrop"] == ["ALL"]
            assert host["SecurityOpt"] == ["no-new-privileges"]
            assert config["User"] == f"{handle.uid}:{handle.uid}"
            assert host["PidsLimit"] == 256
            assert host["Memory"] == host["MemorySwap"] == GIB
            assert host["NanoCpus"] == 1_000_000_000
            assert {"Name": "nofile", "Soft": 256, "Hard": 256} in host["Ulimits"]
            assert {"Name": "core", "Soft": 0, "Hard": 0} in host["Ulimits"]
            assert host["Tmpfs"] == {"/tmp": f"rw,noexec,nosuid,nodev,size={64 * MIB},mode=1777"}
            assert host["ShmSize"] == 8 * MIB
            assert host["LogConfig"] == {"Type": "json-file",
                                         "Config": {"max-size": str(MIB), "max-file": "1"}}
            assert host["Init"] is True
            assert host["Privileged"] is False
            labels = config["Labels"]
            assert labels[LABEL_MANAGED] == "1" and labels[LABEL_RUN] == sandbox.run_id
            assert labels[LABEL_OWNER] == sandbox.owner and labels[LABEL_BOT] == "probe"
            mounts = attrs["Mounts"]
            assert len(mounts) == 1, mounts
            assert mounts[0]["Destination"] == "/talon" and mounts[0]["RW"] is False
            assert mounts[0]["Source"] == str(handle.directory)
            assert config["Env"].count("TALON_ADDRESS=unix:///talon/referee.sock") == 1

            sock = os.stat(handle.socket_path)
            assert stat.S_ISSOCK(sock.st_mode) and stat.S_IMODE(sock.st_mode) == 0o600
            assert 10001 <= handle.uid < 10001 + 4096 and sock.st_uid == handle.uid
            assert len(str(handle.socket_path)) <= 100

            assert _exec(handle, "id", "-u") == (0, str(handle.uid))  # each bot its own uid
            assert _exec(handle, "ls", "/sys/class/net") == (0, "lo")
            code, out = _exec(handle, "python3", "-c",
                              "import socket; socket.create_connection(('192.0.2.1', 80), 2)")
            assert code != 0 and "Network is unreachable" in out
            for path in ("/x", "/bot/x", "/etc/x", "/talon/x", "/usr/local/x"):
                code, out = _exec(handle, "touch", path)
                assert code != 0 and "Read-only file system" in out, (path, out)
            assert _exec(handle, "touch", "/tmp/x")[0] == 0
            code, out = _exec(handle, "sh", "-c", "cp /bin/true /tmp/t && /tmp/t")
            assert code != 0 and "Permission denied" in out  # /tmp is noexec
            code, out = _exec(handle, "grep", "CapEff", "/proc/self/status")
            assert out.split()[-1] == "0000000000000000"
            code, out = _exec(handle, "grep", "NoNewPrivs", "/proc/self/status")
            assert out.split()[-1] == "1"
            assert handle.is_alive()

    asyncio.run(scenario())


def test_nothing_is_left_after_stop_and_close(docker_client: docker.DockerClient,
                                              base_image: str) -> None:
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image) as (sandbox, listeners):
            handles = await asyncio.gather(*(  # seats of a match start concurrently
                sandbox.start(PROBE_BOT, SeatAccess(address="", token=f"t{i}")) for i in range(3)))
            for handle in handles:
                assert await listeners.wait_connected(handle.socket_path, 30) is not None
            ids = [str(h.container.id) for h in handles]
            await handles[0].stop()
            await handles[0].stop()  # idempotent
            assert not handles[0].is_alive()
            assert not handles[0].directory.exists()
            assert handles[1].is_alive() and handles[2].is_alive()
        # close() stopped the others and removed the run directory
        assert not handles[1].directory.exists() and not handles[2].directory.exists()
        assert not sandbox.run_dir.exists()
        assert docker_client.containers.list(
            all=True, filters={"label": f"{LABEL_RUN}={sandbox.run_id}"}) == []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cgroups = Path(f"/proc/{pid}/cgroup").read_text()
            except OSError:
                continue
            assert not any(cid in cgroups for cid in ids), f"process {pid} left in a container"

    asyncio.run(scenario())


_INOTIFY_HOG = ("import ctypes, time\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "held = [fd for fd in (libc.inotify_init() for _ in range(200)) if fd >= 0]\n"
                "print(len(held), flush=True)\n"
                "time.sleep(60)\n")
_INOTIFY_ONE = "import ctypes; print(ctypes.CDLL(None).inotify_init() >= 0)"


def test_each_bot_has_its_own_uid_and_so_its_own_kernel_quotas(docker_client: docker.DockerClient,
                                                                base_image: str) -> None:
    """Per-user kernel counters (here inotify instances, 128 per user by default) are not
    shared: a bot that takes all of its own leaves its opponent's untouched."""
    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image) as (sandbox, listeners):
            hog, victim = await asyncio.gather(*(
                sandbox.start(PROBE_BOT, SeatAccess(address="", token=f"t{i}")) for i in range(2)))
            for handle in (hog, victim):
                assert await listeners.wait_connected(handle.socket_path, 30) is not None
            assert hog.uid != victim.uid
            hog.container.exec_run(["python3", "-c", _INOTIFY_HOG], detach=True)
            for _ in range(100):  # until the hog holds every instance its uid may have
                if _exec(hog, "python3", "-c", _INOTIFY_ONE) == (0, "False"):
                    break
                await asyncio.sleep(0.1)
            assert _exec(hog, "python3", "-c", _INOTIFY_ONE) == (0, "False")
            assert _exec(victim, "python3", "-c", _INOTIFY_ONE) == (0, "True")

    asyncio.run(scenario())


def test_warm_bot_gets_tokens_through_its_file(docker_client: docker.DockerClient,
                                               base_image: str, tmp_path: Path) -> None:
    first = tmp_path / "token"
    first.write_text("seat-token-1\n")

    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image) as (sandbox, listeners):
            handle = await sandbox.start(PROBE_BOT, SeatAccess(address="", token_file=first))
            connection = await listeners.wait_connected(handle.socket_path, 30)
            assert connection is not None and connection.first_bytes == b"probe seat-token-1\n"
            env = handle.container.attrs["Config"]["Env"]
            assert "TALON_TOKEN_FILE=/talon/token" in env
            assert not any(e.startswith("TALON_TOKEN=") for e in env)
            handle.next_match("seat-token-2")
            assert _exec(handle, "cat", "/talon/token") == (0, "seat-token-2")
            token = os.stat(handle.token_file)
            assert token.st_uid == handle.uid and stat.S_IMODE(token.st_mode) == 0o400
            handle.retire()
            assert _exec(handle, "cat", "/talon/token") == (0, "exit")
            with pytest.raises(SandboxError, match="one non-empty line"):
                handle.next_match("two\nlines")
            single = await sandbox.start(PROBE_BOT, SeatAccess(address="", token="t"))
            with pytest.raises(SandboxError, match="started for one match"):
                single.next_match("another")

    asyncio.run(scenario())


def test_sweep_removes_leftovers_of_dead_runs_only(docker_client: docker.DockerClient,
                                                   base_image: str, tmp_path: Path) -> None:
    root = tmp_path / "s"
    dead_owner = "999999999:1"  # no such pid
    labels = {LABEL_MANAGED: "1", LABEL_RUN: "deadrun00000", LABEL_OWNER: dead_owner}
    dead = docker_client.containers.create(base_image, ["sleep", "60"], labels=labels,
                                           network_mode="none")
    live = docker_client.containers.create(
        base_image, ["sleep", "60"], network_mode="none",
        labels={**labels, LABEL_RUN: "liverun00000", LABEL_OWNER: DockerSandbox(
            ProbeListeners(), client=docker_client).owner},
    )
    (root / "deadrun00000").mkdir(parents=True)
    (root / "deadrun00000" / "owner").write_text(dead_owner + "\n")
    try:
        sandbox = DockerSandbox(ProbeListeners(), DockerSandboxConfig(state_root=root),
                                docker_client)
        removed = sandbox.sweep()
        assert f"container {dead.name}" in removed
        assert f"directory {root / 'deadrun00000'}" in removed
        assert not (root / "deadrun00000").exists()
        names = [c.name for c in docker_client.containers.list(all=True)]
        assert dead.name not in names and live.name in names
    finally:
        live.remove(force=True)
        if dead.name in [c.name for c in docker_client.containers.list(all=True)]:
            dead.remove(force=True)


def test_start_errors_are_plain(docker_client: docker.DockerClient, base_image: str,
                                tmp_path: Path) -> None:
    bot_dir = tmp_path / "nodockerfile"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_text("print('hi')\n")

    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image) as (sandbox, _):
            with pytest.raises(SandboxError, match="has no Dockerfile"):
                await sandbox.start(BotSpec.from_dir(bot_dir), SeatAccess(address="", token="t"))
            with pytest.raises(SandboxError, match="does not exist"):
                await sandbox.start_image("talon/bot-none:missing", PROBE_BOT,
                                          SeatAccess(address="", token="t"))
            assert list(sandbox.run_dir.iterdir()) == [sandbox.run_dir / "owner"]
        missing = DockerSandbox(ProbeListeners(), DockerSandboxConfig(
            base_image="talon/bot-base:nonexistent"), docker_client)
        with pytest.raises(SandboxError, match="scripts/build-base-image"):
            missing.base_tag()

    asyncio.run(scenario())

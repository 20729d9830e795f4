"""The service around the match loop: the control API, graceful shutdown, the process sandbox.

Real server, real sockets, real bot processes; the control API is driven by a real gRPC client.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import tempfile
import time
from pathlib import Path

import grpc
import pytest

from referee.match import BotSeat, ExternalSeat, run_match
from referee.match_types import MatchConfig
from referee.sandbox.base import SeatAccess
from referee.sandbox.process import ProcessSandbox
from referee.server import RefereeService, ServiceConfig
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import control_pb2 as cpb

from referee_support import bot, zombies_of


def _unary(channel, method, request, reply):
    return channel.unary_unary(f"/talon.v1.MatchControl/{method}", request_serializer=type(request).SerializeToString,
                               response_deserializer=reply.FromString)(request, timeout=60)


def test_control_api_starts_follows_and_reports_a_match():
    async def scenario() -> None:
        with tempfile.TemporaryDirectory(prefix="tl-") as tmp:
            config = ServiceConfig(bot_unix=Path(tmp) / "b.sock", control_unix=Path(tmp) / "c.sock")
            async with RefereeService(config) as service:
                sandbox = ProcessSandbox()
                async with grpc.aio.insecure_channel(service.control_target) as channel:
                    with pytest.raises(grpc.aio.AioRpcError) as bad:
                        await _unary(channel, "StartMatch", cpb.StartMatchRequest(
                            game="crazy-eights", preset="nope", seat_names=["a", "b"]), cpb.StartMatchResponse)
                    assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT
                    assert "unknown preset 'nope'" in bad.value.details()
                    with pytest.raises(grpc.aio.AioRpcError) as bad:
                        await _unary(channel, "StartMatch", cpb.StartMatchRequest(
                            game="crazy-eights", preset="classic", seat_names=["a"]), cpb.StartMatchResponse)
                    assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "players" in bad.value.details()

                    started = await _unary(channel, "StartMatch", cpb.StartMatchRequest(
                        game="crazy-eights", preset="classic", seed=4, seat_names=["one", "two"],
                        overrides={"draw_mode": "one_then_end"}), cpb.StartMatchResponse)
                    assert started.bot_target == service.bot_target and len(started.seats) == 2
                    watch = channel.unary_stream("/talon.v1.MatchControl/WatchMatch",
                                                 request_serializer=cpb.WatchMatchRequest.SerializeToString,
                                                 response_deserializer=cpb.MatchUpdate.FromString)(
                        cpb.WatchMatchRequest(match_id=started.match_id), timeout=60)
                    with pytest.raises(grpc.aio.AioRpcError) as running:
                        await _unary(channel, "GetResult", cpb.GetResultRequest(match_id=started.match_id),
                                     bpb.MatchResult)
                    assert running.value.code() is grpc.StatusCode.FAILED_PRECONDITION
                    for ticket in started.seats:
                        await sandbox.start(bot("random"), SeatAccess(started.bot_target, token=ticket.token))
                    updates = [u async for u in watch]
                    result = await _unary(channel, "GetResult", cpb.GetResultRequest(
                        match_id=started.match_id, wait=True), bpb.MatchResult)
                    events = [u.event for u in updates if u.WhichOneof("update") == "event"]
                    assert updates[-1].WhichOneof("update") == "result" and updates[-1].result == result
                    assert [e.index for e in events] == list(range(len(events))) and events[0].kind == "deal"
                    assert [s.name for s in result.seats] == ["one", "two"] and result.decisions > 0
                    with pytest.raises(grpc.aio.AioRpcError) as missing:
                        await _unary(channel, "GetResult", cpb.GetResultRequest(match_id="nope"), bpb.MatchResult)
                    assert missing.value.code() is grpc.StatusCode.NOT_FOUND
                await sandbox.close()

    asyncio.run(scenario())


def test_graceful_shutdown_ends_running_matches_cleanly():
    async def scenario() -> None:
        with tempfile.TemporaryDirectory(prefix="tl-") as tmp:
            service = RefereeService(ServiceConfig(bot_unix=Path(tmp) / "b.sock"))
            await service.start()
            sandbox = ProcessSandbox()
            config = MatchConfig("crazy-rummy" if _has_rummy() else "crazy-eights",
                                 "standard" if _has_rummy() else "countdown", 3)
            match = asyncio.ensure_future(run_match(config, [BotSeat(bot("random"))] * 3, service=service,
                                                    sandbox=sandbox))
            def all_connected() -> bool:
                entries = [service.entry(i) for i in service.match_ids]
                return bool(entries) and all(link.is_open for e in entries if e for link in e.links)

            while not all_connected():
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)
            started = time.monotonic()
            await service.stop(grace_s=0.2)
            assert time.monotonic() - started < 10
            with pytest.raises(asyncio.CancelledError):
                await match
            assert service.running_matches == 0
            assert not any(h.is_alive() for h in sandbox.handles)  # the match's bots were stopped
            assert not Path(tmp, "b.sock").exists()
            logs = "\n".join(h.logs() for h in sandbox.handles)
            assert "ABORTED" in logs and "shutting down" in logs  # the bots were told why
            await sandbox.close()
            assert zombies_of(os.getpid()) == []

    asyncio.run(scenario())


def _has_rummy() -> bool:
    try:
        import referee.games.crazy_rummy.state  # noqa: F401
    except ImportError:
        return False
    return True


async def _spawned(handle) -> list[int]:
    """The pids the ``spawner`` bot wrote once its tree of processes runs."""
    pids_file = handle.workdir / "bot" / "pids.txt"
    deadline = time.monotonic() + 20
    while not pids_file.exists() or not pids_file.read_text().endswith("\n"):
        assert time.monotonic() < deadline, handle.logs()
        await asyncio.sleep(0.05)
    return [int(p) for p in pids_file.read_text().split()]


def test_the_process_sandbox_kills_the_whole_tree_and_leaves_no_zombie(tmp_path):
    async def scenario() -> None:
        sandbox = ProcessSandbox()
        handle = await sandbox.start(bot("spawner"), SeatAccess("unix:///nowhere", token="secret-token"))
        pids = await _spawned(handle)
        env = (handle.workdir / "bot" / "env.txt").read_text().split()
        assert "TALON_TOKEN" in env and "TALON_ADDRESS" in env
        assert not any(name.startswith(("PYTEST", "VIRTUAL_ENV")) for name in env)
        assert str(handle.workdir) != str(bot("spawner").directory)
        assert os.getpgid(pids[0]) == pids[0]  # its own process group and session
        await handle.stop()
        await asyncio.sleep(0.2)
        assert not any(_alive(pid) for pid in pids)
        assert not handle.is_alive() and handle.returncode == -signal.SIGKILL
        assert not handle.workdir.exists()
        assert zombies_of(os.getpid()) == []
        await sandbox.close()

    asyncio.run(scenario())


def test_a_stop_cancelled_midway_still_cleans_up_and_passes_the_cancellation_on(tmp_path):
    """Ctrl-C while a bot is being stopped: the bot dies, its directory goes, and the caller's
    cancellation is not taken for the end of the bot's log pipe (which would let a cancelled
    tournament play on)."""
    async def scenario() -> None:
        sandbox = ProcessSandbox()
        handle = await sandbox.start(bot("spawner"), SeatAccess("unix:///nowhere", token="secret-token"))
        pids = await _spawned(handle)
        stopping = asyncio.ensure_future(handle.stop())
        await asyncio.sleep(0)  # stop() has sent SIGKILL and waits for the child
        stopping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopping
        assert not handle.workdir.exists()
        await asyncio.sleep(0.2)
        assert not any(_alive(pid) for pid in pids)
        await sandbox.close()

    asyncio.run(scenario())


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie that init has not reaped yet does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_bots_reach_the_same_match_over_unix_tcp_and_an_extra_listener():
    async def scenario() -> None:
        with tempfile.TemporaryDirectory(prefix="tl-") as tmp:
            config = ServiceConfig(bot_unix=Path(tmp) / "b.sock", bot_tcp="127.0.0.1:0")
            async with RefereeService(config) as service:
                extra = await service.add_unix_listener(Path(tmp) / "extra.sock")
                tcp = service.bot_tcp_target
                assert service.bot_target.startswith("unix://") and tcp.startswith("127.0.0.1:")
                sandbox = ProcessSandbox()
                starting: list[asyncio.Future[object]] = []

                def on_tokens(_: str, tokens: list[str]) -> None:
                    for target, token in zip([service.bot_target, tcp, extra], tokens):
                        starting.append(asyncio.ensure_future(sandbox.start(bot("random"), SeatAccess(target, token))))

                seats = [ExternalSeat("unix"), ExternalSeat("tcp"), ExternalSeat("extra")]
                result = await run_match(MatchConfig("crazy-eights", "classic", 8), seats, service=service,
                                         on_tokens=on_tokens)
                assert not result.failures and all(s.decisions > 0 for s in result.seats)
                await service.remove_unix_listener(Path(tmp) / "extra.sock")
                assert not Path(tmp, "extra.sock").exists()
                await sandbox.close()

    asyncio.run(scenario())


def test_a_sandboxed_bots_own_socket_caps_connections_streams_and_calls():
    """What one untrusted bot can hold on its private socket: 4 connections, 4 streams on each,
    8 calls in all, and no health service (one bot opening thousands of connections ran the
    referee out of file descriptors before these caps)."""
    async def scenario() -> None:
        with tempfile.TemporaryDirectory(prefix="tl-") as tmp:
            async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "b.sock", hello_timeout_s=1.0)) as service:
                private = Path(tmp) / "p.sock"
                target = await service.add_unix_listener(private)
                before = len(os.listdir("/proc/self/fd"))
                flood = []
                for _ in range(200):
                    sock = socket.socket(socket.AF_UNIX)
                    sock.setblocking(False)
                    with contextlib.suppress(BlockingIOError):
                        sock.connect(str(private))
                    flood.append(sock)
                await asyncio.sleep(0.5)
                held_by_referee = len(os.listdir("/proc/self/fd")) - before - len(flood)
                assert held_by_referee <= 8, held_by_referee
                for sock in flood:
                    sock.close()
                own = [("grpc.use_local_subchannel_pool", 1)]  # a connection per channel, not one shared
                channels = [grpc.aio.insecure_channel(target, options=own) for _ in range(3)]
                for channel in channels:  # once the server has seen the flood's connections close
                    await asyncio.wait_for(channel.channel_ready(), 10)
                health = channels[0].unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda b: b,
                                                 response_deserializer=lambda b: b)
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await health(b"", timeout=10)
                assert missing.value.code() is grpc.StatusCode.UNIMPLEMENTED
                # 4 streams on one connection at a time: of 8 calls that never say Hello, the server
                # serves 4 (each ends at the 1 s Hello timeout) and the rest wait for them, taking a
                # second wave, or are refused at the HTTP/2 level (REFUSED_STREAM, seen as UNAVAILABLE)
                started = time.monotonic()
                wave = [channels[0].stream_stream("/talon.v1.BotSession/Play")(timeout=20) for _ in range(8)]
                codes = await asyncio.gather(*(c.code() for c in wave))
                served = codes.count(grpc.StatusCode.DEADLINE_EXCEEDED)
                assert served + codes.count(grpc.StatusCode.UNAVAILABLE) == 8, codes
                assert served <= 4 or time.monotonic() - started >= 1.9, codes
                # 8 calls at once in all: 3 connections x 4 streams = 12 calls, 4 of them refused at once
                calls = [ch.stream_stream("/talon.v1.BotSession/Play")(timeout=20) for ch in channels for _ in range(4)]
                ends = await asyncio.gather(*(c.code() for c in calls))
                assert ends.count(grpc.StatusCode.DEADLINE_EXCEEDED) <= 8, ends  # never more served at once
                assert ends.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 1, ends
                for ch in channels:
                    await ch.close()

    asyncio.run(scenario())

"""`talon serve`: the referee as its own process, driven over its control API by a real gRPC
client, with bots started by hand from their seat tokens (as a bot in another language would)."""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2  # type: ignore[import-untyped]

from referee.server import DEFAULT_MAX_MESSAGE_BYTES
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import control_pb2 as cpb

ROOT = Path(__file__).resolve().parents[2]
TALON = [sys.executable, "-c", "from referee.cli import main; main()"]


def _line(process: subprocess.Popen[str], timeout_s: float = 30.0) -> str:
    """The next line the server writes on stderr."""
    assert process.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stderr, selectors.EVENT_READ)
    if not selector.select(timeout_s):
        process.kill()
        raise AssertionError("talon serve wrote nothing within the timeout")
    return process.stderr.readline()


def _unary(channel: grpc.Channel, method: str, request, reply):
    return channel.unary_unary(f"/talon.v1.MatchControl/{method}", request_serializer=type(request).SerializeToString,
                               response_deserializer=reply.FromString)(request, timeout=60)


def _stop(*processes: subprocess.Popen[Any]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_serve_runs_matches_for_bots_started_by_hand_and_stops_on_sigterm():
    tmp = Path(tempfile.mkdtemp(prefix="tsv-"))  # short: a Unix socket path must stay under 107 bytes
    server = subprocess.Popen([*TALON, "serve", "--bot-unix", str(tmp / "b.sock"), "--control-unix",
                               str(tmp / "c.sock"), "--bot-tcp", "127.0.0.1:0", "--grace-s", "5"],
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        ready = _line(server)
        assert ready.startswith(f"serving: bots on unix://{tmp / 'b.sock'} and 127.0.0.1:"), ready
        with grpc.insecure_channel(f"unix://{tmp / 'c.sock'}") as channel:
            check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                                        response_deserializer=health_pb2.HealthCheckResponse.FromString)
            assert check(health_pb2.HealthCheckRequest(service="talon.v1.MatchControl"), timeout=10).status == \
                health_pb2.HealthCheckResponse.SERVING
            started = _unary(channel, "StartMatch", cpb.StartMatchRequest(
                game="crazy-rummy", preset="standard", seed=9, seat_names=["north", "east", "south"]),
                cpb.StartMatchResponse)
            for ticket in started.seats:
                env = {"PATH": os.environ["PATH"], "TALON_ADDRESS": started.bot_target, "TALON_TOKEN": ticket.token}
                bots.append(subprocess.Popen([sys.executable, str(ROOT / "sample_bots" / "greedy" / "bot.py")],
                                             env=env, stderr=subprocess.DEVNULL))
            result = _unary(channel, "GetResult", cpb.GetResultRequest(match_id=started.match_id, wait=True),
                            bpb.MatchResult)
        assert [s.name for s in result.seats] == ["north", "east", "south"] and result.decisions > 0
        assert not result.failures and sorted(s.place for s in result.seats)[0] == 1
        assert all(b.wait(timeout=30) == 0 for b in bots)  # each bot played its seat and left

        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        rest = server.stderr.read() if server.stderr else ""
        assert "stopping: running matches have 5 s to finish" in rest and rest.rstrip().endswith("stopped")
        assert not (tmp / "b.sock").exists() and not (tmp / "c.sock").exists()
    finally:
        _stop(server, *bots)
        shutil.rmtree(tmp, ignore_errors=True)


def test_serve_names_a_missing_listener_and_a_socket_in_use(tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*TALON, "serve", *args], capture_output=True, text=True, timeout=60)

    no_control = run("--bot-unix", str(tmp_path / "b.sock"))
    assert no_control.returncode == 2 and "give a control listener" in no_control.stderr
    no_bots = run("--control-unix", str(tmp_path / "c.sock"))
    assert no_bots.returncode == 2 and "give a bot listener" in no_bots.stderr
    (tmp_path / "b.sock").write_text("")
    in_use = run("--bot-unix", str(tmp_path / "b.sock"), "--control-unix", str(tmp_path / "c.sock"))
    assert in_use.returncode == 2 and "exists: is another referee serving there?" in in_use.stderr
    shown = run("--help")
    assert f"[default: {DEFAULT_MAX_MESSAGE_BYTES}]" in shown.stdout  # the help's default is the service's


def test_talon_match_starts_a_match_on_a_running_serve_and_fetches_its_result():
    """The shell's way to try a bot in any language: serve, `talon match start`, the bots with
    their tokens, `talon match result --wait`."""
    import json

    tmp = Path(tempfile.mkdtemp(prefix="tsm-"))
    control = f"unix://{tmp / 'c.sock'}"
    server = subprocess.Popen([*TALON, "serve", "--bot-unix", str(tmp / "b.sock"), "--control-unix", str(tmp / "c.sock")],
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        assert _line(server).startswith("serving:")
        started = subprocess.run([*TALON, "match", "start", "--control", control, "--game", "crazy-eights", "--rules",
                                  "pagat", "--seat", "mine", "--seat", "theirs", "--seed", "4", "--set",
                                  "match_target=30"], capture_output=True, text=True, timeout=60)
        assert started.returncode == 0, started.stderr
        ticket = json.loads(started.stdout)
        assert [(s["seat"], s["name"]) for s in ticket["seats"]] == [(0, "mine"), (1, "theirs")]
        assert ticket["bot_target"].startswith("unix://")
        for seat in ticket["seats"]:
            env = {"PATH": os.environ["PATH"], "TALON_ADDRESS": ticket["bot_target"], "TALON_TOKEN": seat["token"]}
            bots.append(subprocess.Popen([sys.executable, str(ROOT / "sample_bots" / "random" / "bot.py")], env=env,
                                         stderr=subprocess.DEVNULL))
        done = subprocess.run([*TALON, "match", "result", "--control", control, ticket["match_id"], "--wait"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert [s["name"] for s in result["seats"]] == ["mine", "theirs"] and result["decisions"] > 0
        unknown = subprocess.run([*TALON, "match", "result", "--control", control, "nope"], capture_output=True,
                                 text=True, timeout=60)
        assert unknown.returncode == 1 and "NOT_FOUND" in unknown.stderr
    finally:
        _stop(server, *bots)
        shutil.rmtree(tmp, ignore_errors=True)
    nobody = subprocess.run([*TALON, "match", "result", "--control", f"unix://{tmp / 'gone.sock'}", "x"],
                            capture_output=True, text=True, timeout=60)
    assert nobody.returncode == 1 and "no referee answers at" in nobody.stderr

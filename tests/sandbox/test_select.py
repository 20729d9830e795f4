"""The default sandbox: Docker where it can run bots here, else processes, always with the reason.

The engine is real (or really absent: ``DOCKER_HOST`` pointing at a socket nobody serves, or
served by something that is not Docker); nothing of ours is faked.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from referee.sandbox.base import BotSpec, SandboxError, SandboxKind
from referee.sandbox.image import BaseImageRecipe, ensure_base_image
from referee.sandbox.select import default_sandbox_kind, docker_problem, require_docker
from referee.tournament.config import TournamentConfig
from referee.tournament.store import TournamentStore

REPO = Path(__file__).resolve().parents[2]
SAMPLES = [BotSpec.from_dir(REPO / "sample_bots" / name) for name in ("random", "greedy")]
NO_DOCKERFILE = BotSpec.from_dir(REPO / "tests" / "tournament" / "bots" / "memory")
TALON = [sys.executable, "-c", "from referee.cli import main; main()"]


@pytest.fixture
def not_docker(tmp_path: Path) -> Iterator[Path]:
    """A Unix socket served by something that answers HTTP, but not as Docker does."""
    path = tmp_path / "not-docker.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.recv(4096)
                connection.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield path
    server.close()
    thread.join(5)


def test_no_engine_means_processes_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    address = f"unix://{tmp_path}/absent.sock"
    monkeypatch.setenv("DOCKER_HOST", address)
    kind, why = default_sandbox_kind(SAMPLES)
    assert kind is SandboxKind.PROCESS
    assert why == f"no Docker engine answered at {address} (no such socket): bots run as processes (--sandbox process)"
    with pytest.raises(SandboxError) as raised:
        require_docker(SAMPLES)
    assert str(raised.value) == (
        f"--sandbox docker: no Docker engine answered at {address} (no such socket); start the Docker engine "
        "(or point DOCKER_HOST at one), or use --sandbox process"
    )


def test_something_else_on_the_socket_is_not_an_engine(not_docker: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{not_docker}")
    problem = docker_problem(SAMPLES)
    assert problem is not None and "unexpected reply b'HTTP/1.0 404 Not Found'" in problem.what


def test_cli_refuses_docker_without_an_engine_before_anything_starts(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    address = f"unix://{tmp_path}/absent.sock"
    done = subprocess.run(
        [*TALON, "tournament", "--game", "crazy-eights", "--rules", "classic", "--table-size", "2",
         "--bots", str(REPO / "sample_bots" / "random"), str(REPO / "sample_bots" / "greedy"),
         "--deal-groups", "1", "--seed", "1", "--db", str(db), "--sandbox", "docker"],
        cwd=REPO, capture_output=True, text=True, timeout=120, env={**os.environ, "DOCKER_HOST": address},
    )
    assert done.returncode == 1
    assert f"Error: --sandbox docker: no Docker engine answered at {address} (no such socket)" in done.stderr
    assert not db.exists()


def test_cli_default_falls_back_to_processes_and_plays(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    address = f"unix://{tmp_path}/absent.sock"
    done = subprocess.run(
        [*TALON, "tournament", "--game", "crazy-eights", "--rules", "classic", "--set", "match_end=hands",
         "--set", "match_hands=1", "--table-size", "2", "--bots", str(REPO / "sample_bots" / "random"),
         str(REPO / "sample_bots" / "greedy"), "--deal-groups", "1", "--seed", "1", "--db", str(db), "--json",
         "--bootstrap", "10", "--concurrency", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ, "DOCKER_HOST": address},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (
        f"sandbox: no Docker engine answered at {address} (no such socket): bots run as processes (--sandbox process)"
    )
    assert "groups 1/1 (100%), games 2/2" in done.stderr


def test_docker_is_the_default_where_it_can_run(docker_client: docker.DockerClient, base_image: str) -> None:
    ensure_base_image(docker_client, BaseImageRecipe.from_host())  # again: the SDK may have changed since
    kind, why = default_sandbox_kind(SAMPLES)
    assert kind is SandboxKind.DOCKER and why.endswith("bots run in containers (--sandbox docker)")
    kind, why = default_sandbox_kind([*SAMPLES, NO_DOCKERFILE])
    assert (kind, why) == (SandboxKind.PROCESS, "the bot memory has no Dockerfile: bots run as processes (--sandbox process)")


def test_resume_keeps_the_stored_docker_sandbox_and_says_when_it_cannot(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    config = TournamentConfig.make(game="crazy-eights", rules="classic", table_size=2, bots=["greedy", "random"],
                                   seed=1, deal_groups=1, sandbox="docker")
    TournamentStore.open(db, config).close()
    address = f"unix://{tmp_path}/absent.sock"
    done = subprocess.run(
        [*TALON, "tournament", "--game", "crazy-eights", "--rules", "classic", "--table-size", "2",
         "--bots", str(REPO / "sample_bots" / "random"), str(REPO / "sample_bots" / "greedy"),
         "--deal-groups", "1", "--seed", "1", "--db", str(db), "--resume"],
        cwd=REPO, capture_output=True, text=True, timeout=120, env={**os.environ, "DOCKER_HOST": address},
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"Error: {db} was started with --sandbox docker: no Docker engine answered at {address} (no such socket); "
        "start the Docker engine (or point DOCKER_HOST at one)"
    )

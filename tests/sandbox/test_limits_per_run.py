"""Container limits set per run: ``talon tournament`` and ``talon play`` take ``--bot-cpus``,
``--bot-memory``, ``--bot-pids`` and ``--bot-runtime``; the containers of the run carry them, the
tournament stores them (a resume with other limits is refused) and bad values are named."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import docker
from sandbox_helpers import REPO

from referee.sandbox.docker_sandbox import LABEL_BOT, LABEL_MANAGED
from referee.sandbox.docker_limits import MIB
from referee.tournament.store import TournamentStore

TALON = [str(Path(sys.executable).with_name("talon"))]
BOTS = [str(REPO / "sample_bots" / "random"), str(REPO / "sample_bots" / "greedy")]


def _tournament(db: Path, *extra: str) -> list[str]:
    return [*TALON, "tournament", "--game", "crazy-eights", "--rules", "classic", "--table-size", "2",
            "--bots", *BOTS, "--deal-groups", "12", "--seed", "5", "--db", str(db), "--sandbox", "docker",
            "--concurrency", "1", "--quiet", *extra]


def test_tournament_containers_carry_the_limits_asked_for(docker_client: docker.DockerClient, base_image: str,
                                                          tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    limits = ["--bot-cpus", "0.5", "--bot-memory", "384m", "--bot-pids", "48"]
    run = subprocess.Popen(_tournament(db, *limits), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    seen: dict[str, dict[str, object]] = {}
    deadline = time.monotonic() + 120
    while run.poll() is None and time.monotonic() < deadline and len(seen) < 2:
        for container in docker_client.containers.list(filters={"label": LABEL_MANAGED}):
            if container.labels.get(LABEL_BOT) in ("random", "greedy"):
                seen[container.labels[LABEL_BOT]] = container.attrs["HostConfig"]
        time.sleep(0.05)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 0, err
    assert set(seen) == {"random", "greedy"}
    for host in seen.values():
        assert host["NanoCpus"] == 500_000_000
        assert host["Memory"] == host["MemorySwap"] == 384 * MIB
        assert host["PidsLimit"] == 48
    with TournamentStore.read(db) as store:
        options = dict(store.config.options)
    assert (options["bot_cpus"], options["bot_memory_bytes"], options["bot_pids"]) == (0.5, 384 * MIB, 48)
    again = subprocess.run(_tournament(db, "--resume", "--bot-cpus", "0.5", "--bot-memory", "384m",
                                       "--bot-pids", "64"), cwd=REPO, capture_output=True, text=True)
    assert again.returncode != 0
    assert "bot_pids" in again.stderr


def test_bad_limits_are_named_before_anything_starts(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    for flags, words in ((["--bot-pids", "4"], "pids is 4; it must be at least 16"),
                         (["--bot-memory", "lots"], "size 'lots' is not a number of bytes like 512m"),
                         (["--bot-runtime", "run sc"], "runtime 'run sc' is not a runtime name")):
        result = subprocess.run(_tournament(db, *flags), cwd=REPO, capture_output=True, text=True)
        assert result.returncode == 2, result.stderr
        assert words in result.stderr
    process = [a if a != "docker" else "process" for a in _tournament(db, "--bot-cpus", "2")]
    result = subprocess.run(process, cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 2
    assert "container limits (--bot-cpus) need --sandbox docker" in result.stderr
    assert not db.exists()

"""Bots in languages other than Python: a bot directory whose entry is an executable ``bot``.

The Go sample bot (``sample_bots/go_random``) speaks the ``.proto`` contract with grpc-go and no
Talon code at all. It is built here from the checked-in sources with Debian's Go packages,
then plays real matches on a real referee service: in the process sandbox (one seat, and warm
through its token file) and in the Docker sandbox. The directory rules (which entry, what a
broken one is told) are checked on real files.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import docker
import pytest
from sandbox_helpers import REPO

from referee.match import BotSeat, WarmSeat, run_match, write_token_file
from referee.match_types import Clocks, MatchConfig, MatchResult
from referee.replay import verify_replay
from referee.sandbox.base import PROGRAM_ENTRY, PYTHON_ENTRY, BotSpec, SandboxError, SeatAccess
from referee.sandbox.docker_sandbox import DockerSandbox, DockerSandboxConfig
from referee.sandbox.process import ProcessSandbox
from referee.server import RefereeService, ServiceConfig

RANDOM = BotSpec.from_dir(REPO / "sample_bots" / "random")
GREEDY = BotSpec.from_dir(REPO / "sample_bots" / "greedy")
CLOCKS = Clocks(decision_ms=2000, bank_ms=5000)


@pytest.fixture(scope="module")
def go_bot(tmp_path_factory: pytest.TempPathFactory) -> BotSpec:
    """``sample_bots/go_random`` built by its own build script, into a copy of the directory."""
    directory = tmp_path_factory.mktemp("bots") / "go_random"
    shutil.copytree(REPO / "sample_bots" / "go_random", directory)
    done = subprocess.run([str(REPO / "sample_bots" / "go_random" / "build"), str(directory / "bot")], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, f"the Go bot did not build:\n{done.stdout}\n{done.stderr}"
    spec = BotSpec.from_dir(directory)
    assert spec.entry == PROGRAM_ENTRY
    return spec


@asynccontextmanager
async def process_referee() -> AsyncIterator[tuple[RefereeService, ProcessSandbox]]:
    with tempfile.TemporaryDirectory(prefix="talon-") as tmp:
        async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
            sandbox = ProcessSandbox()
            try:
                yield service, sandbox
            finally:
                await sandbox.close()


def _bot_decisions(result: MatchResult, seat: int) -> int:
    return sum(1 for a in result.replay["actions"] if a["seat"] == seat and a["by"] == "bot")


@pytest.mark.parametrize(("game", "rules", "others"), [
    ("crazy-eights", "classic", [RANDOM]),
    ("crazy-rummy", "standard", [RANDOM, GREEDY]),
])
def test_go_bot_plays_a_clean_match_in_the_process_sandbox(go_bot: BotSpec, game: str, rules: str,
                                                          others: list[BotSpec]) -> None:
    async def scenario() -> MatchResult:
        async with process_referee() as (service, sandbox):
            return await run_match(MatchConfig(game, rules, 5, clocks=CLOCKS),
                                   [BotSeat(go_bot), *(BotSeat(b) for b in others)],
                                   service=service, sandbox=sandbox)

    result = asyncio.run(scenario())
    assert result.failures == (), result.failures
    go_seat = result.seats[0]
    assert go_seat.strikes == 0 and not go_seat.taken_over
    assert _bot_decisions(result, 0) > 10  # its own answers, not the fallback player's
    assert verify_replay(result.replay) == []


def test_go_bot_serves_matches_in_a_row_from_its_token_file(go_bot: BotSpec, tmp_path: Path) -> None:
    async def scenario() -> list[MatchResult]:
        async with process_referee() as (service, sandbox):
            token_file = tmp_path / "go-token"
            handle = await sandbox.start(go_bot, SeatAccess(service.bot_target, token_file=token_file))
            seats = [WarmSeat("go", handle, token_file), BotSeat(RANDOM)]
            results = [await run_match(MatchConfig("crazy-eights", "classic", seed, clocks=CLOCKS), seats,
                                       service=service, sandbox=sandbox) for seed in (1, 2, 3)]
            assert handle.is_alive()
            write_token_file(token_file, "exit")
            for _ in range(200):
                if not handle.is_alive():
                    break
                await asyncio.sleep(0.02)
            assert not handle.is_alive(), handle.logs()
            assert "token file says exit" in handle.logs()
            return results

    results = asyncio.run(scenario())
    for result in results:
        assert result.failures == (), result.failures
        assert _bot_decisions(result, 0) > 10


def test_go_bot_plays_in_the_docker_sandbox(go_bot: BotSpec, docker_client: docker.DockerClient,
                                            base_image: str) -> None:
    async def scenario() -> MatchResult:
        with tempfile.TemporaryDirectory(prefix="talon-") as tmp:
            async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
                sandbox = DockerSandbox(service, DockerSandboxConfig(base_image=base_image), docker_client)
                try:
                    return await run_match(MatchConfig("crazy-eights", "classic", 9, clocks=CLOCKS),
                                           [BotSeat(go_bot), BotSeat(RANDOM)], service=service, sandbox=sandbox)
                finally:
                    await sandbox.close()

    result = asyncio.run(scenario())
    assert result.failures == (), result.failures
    assert _bot_decisions(result, 0) > 10


def test_go_bot_serves_matches_in_a_row_in_a_warm_container(go_bot: BotSpec, docker_client: docker.DockerClient,
                                                           base_image: str) -> None:
    async def scenario() -> list[MatchResult]:
        with tempfile.TemporaryDirectory(prefix="talon-") as tmp:
            async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
                sandbox = DockerSandbox(service, DockerSandboxConfig(base_image=base_image), docker_client)
                try:
                    handle = await sandbox.start(go_bot, SeatAccess(address=""))
                    seats = [WarmSeat("go", handle, handle.token_file), BotSeat(RANDOM)]
                    results = [await run_match(MatchConfig("crazy-eights", "classic", seed, clocks=CLOCKS), seats,
                                               service=service, sandbox=sandbox) for seed in (4, 5)]
                    handle.retire()  # writes "exit" to its token file
                    status = await handle.wait_exit(10)
                    assert not status.running and status.exit_code == 0, handle.logs()
                    return results
                finally:
                    await sandbox.close()

    for result in asyncio.run(scenario()):
        assert result.failures == (), result.failures
        assert _bot_decisions(result, 0) > 10


def _directory(tmp_path: Path, files: dict[str, tuple[str, int]]) -> Path:
    directory = tmp_path / "mybot"
    directory.mkdir()
    for name, (text, mode) in files.items():
        (directory / name).write_text(text)
        os.chmod(directory / name, mode)
    return directory


def test_a_directory_names_its_entry_or_is_told_what_is_missing(tmp_path: Path) -> None:
    empty = _directory(tmp_path, {"Dockerfile": ("FROM x\n", 0o644)})
    with pytest.raises(SandboxError, match=r"has no bot: put in it a bot\.py .* or an executable named 'bot'"):
        BotSpec.from_dir(empty)
    (empty / "bot").write_text("#!/bin/sh\n")
    with pytest.raises(SandboxError, match=r"'bot' is not executable; make it so \(chmod \+x"):
        BotSpec.from_dir(empty)
    os.chmod(empty / "bot", 0o755)
    assert BotSpec.from_dir(empty).entry == PROGRAM_ENTRY
    assert BotSpec.from_dir(empty).command("python3") == ["./bot"]
    (empty / "bot.py").write_text("")
    assert BotSpec.from_dir(empty).entry == PYTHON_ENTRY  # bot.py wins: the SDK's bots
    assert BotSpec.from_dir(empty).command("/usr/bin/python3") == ["/usr/bin/python3", "bot.py"]


def test_a_program_linked_for_a_missing_loader_is_told_to_link_statically(tmp_path: Path) -> None:
    program = Path("/bin/true").read_bytes()
    loader = re.search(rb"/lib[^\x00]*/ld-[^\x00]*\.so[.0-9]*", program)
    assert loader, "no dynamic loader path in /bin/true"
    directory = tmp_path / "mybot"
    directory.mkdir()
    (directory / "bot").write_bytes(program.replace(loader.group(), b"/" + b"x" * (len(loader.group()) - 1)))
    os.chmod(directory / "bot", 0o755)

    async def scenario() -> None:
        sandbox = ProcessSandbox(root=tmp_path)
        try:
            with pytest.raises(SandboxError, match="^bot 'mybot': ./bot: the dynamic loader it was linked for is "
                                                   "not here: link it statically"):
                await sandbox.start(BotSpec.from_dir(directory), SeatAccess("unix:///nowhere", token="t"))
        finally:
            await sandbox.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(("text", "words"), [
    ("#!/no/such/interpreter\n", "./bot: the interpreter its #! line names is not installed here"),
    ("\x7fELF not really a program\n", "./bot is a program for another machine: build it for Linux on"),
    ("echo no interpreter line\n", "./bot is neither a program nor a script: a script's first line names its "
                                    "interpreter"),
])
def test_a_program_that_cannot_start_is_told_why(tmp_path: Path, text: str, words: str) -> None:
    bot = BotSpec.from_dir(_directory(tmp_path, {"bot": (text, 0o755)}))

    async def scenario() -> None:
        sandbox = ProcessSandbox(root=tmp_path)
        try:
            with pytest.raises(SandboxError, match=f"^bot 'mybot': {re.escape(words)}"):
                await sandbox.start(bot, SeatAccess("unix:///nowhere", token="t"))
        finally:
            await sandbox.close()

    asyncio.run(scenario())
    assert [p.name for p in tmp_path.iterdir()] == ["mybot"]  # its working copy is gone

"""``talon bot new`` / ``talon bot build`` on the real engine: a new bot builds and starts;
broken ones are reported in plain words."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
from click.testing import CliRunner, Result
from sandbox_helpers import probe_sandbox

from referee.cli import main
from referee.sandbox.base import BotSpec, SandboxError, SeatAccess
from referee.sandbox.bot_image import BUILD_MEMORY_BYTES, directory_digest, ensure_bot_image, repository_name

DOCKERFILE = """\
ARG TALON_BASE=talon/bot-base:latest
FROM ${TALON_BASE}
COPY bot.py /bot/bot.py
"""


def _bot(tmp_path: Path, name: str, bot_py: str, extra_dockerfile: str = "") -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "bot.py").write_text(bot_py)
    (directory / "Dockerfile").write_text(DOCKERFILE + extra_dockerfile)
    return directory


def _build(directory: Path, *options: str) -> Result:
    return CliRunner().invoke(main, ["bot", "build", str(directory), *options])


@pytest.fixture(autouse=True)
def _forget_test_bot_images(docker_client: docker.DockerClient) -> Iterator[None]:
    """Remove the images these throwaway bots leave (they are rebuilt per base image)."""
    yield
    for name in ("fresh_bot", "broken", "fetcher", "needs_numpy", "sleeper", "linker", "hungry_build"):
        for image in docker_client.images.list(name=repository_name(name)):
            for tag in image.tags:
                docker_client.images.remove(tag, force=True)


def test_new_bot_builds_and_starts(docker_client: docker.DockerClient, base_image: str,
                                   tmp_path: Path) -> None:
    made = CliRunner().invoke(main, ["bot", "new", "fresh_bot", "--dir", str(tmp_path)])
    assert made.exit_code == 0, made.output
    dockerfile = (tmp_path / "fresh_bot" / "Dockerfile").read_text()
    assert "ARG TALON_BASE=talon/bot-base:latest\nFROM ${TALON_BASE}\n" in dockerfile
    assert "class FreshBot(Bot)" in (tmp_path / "fresh_bot" / "bot.py").read_text()
    built = _build(tmp_path / "fresh_bot")
    assert built.exit_code == 0, built.output
    assert "check: bot 'fresh_bot' started and connected to the referee socket" in built.output
    again = CliRunner().invoke(main, ["bot", "new", "fresh_bot", "--dir", str(tmp_path)])
    assert again.exit_code == 1 and "already exists" in again.output


def test_failing_dockerfile_step_is_named(docker_client: docker.DockerClient, base_image: str,
                                          tmp_path: Path) -> None:
    directory = _bot(tmp_path, "broken", "print('x')\n", "RUN echo about to fail && false\n")
    result = _build(directory)
    assert result.exit_code == 1
    assert "the Dockerfile of bot 'broken'" in result.output
    assert re.search(r"failed to build at Step \d+/\d+ : RUN echo about to fail && false",
                     result.output)
    assert "\n  about to fail\n" in result.output
    assert "intermediate container" not in result.output


def test_build_has_no_network(docker_client: docker.DockerClient, base_image: str,
                              tmp_path: Path) -> None:
    fetch = ("RUN python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80), 2)\"\n")
    result = _build(_bot(tmp_path, "fetcher", "print('x')\n", fetch))
    assert result.exit_code == 1
    assert "Network is unreachable" in result.output
    assert "Builds have no network" in result.output


def test_build_steps_have_a_memory_cap(docker_client: docker.DockerClient, base_image: str,
                                       tmp_path: Path) -> None:
    hog = f"RUN python3 -c \"b = bytearray({BUILD_MEMORY_BYTES} + (256 << 20)); print('ALLOC' + '-DONE')\"\n"
    result = _build(_bot(tmp_path, "hungry_build", "print('x')\n", hog))
    assert result.exit_code == 1
    assert "the Dockerfile of bot 'hungry_build'" in result.output
    assert "returned a non-zero code: 137" in result.output and "ALLOC-DONE" not in result.output
    assert "build steps are capped at 2048 MiB of memory" in result.output


def test_a_silent_build_step_is_given_up(docker_client: docker.DockerClient, base_image: str,
                                        tmp_path: Path) -> None:
    """``RUN sleep`` for ever would hang a build (and a tournament's start): a step that prints
    nothing for the idle timeout ends the build with words, and its container is removed."""
    directory = _bot(tmp_path, "sleeper", "print('never runs')\n", "RUN sleep 600\n")
    started = time.monotonic()
    with pytest.raises(SandboxError, match=r"was given up: a build step printed nothing for 3 s"):
        ensure_bot_image(docker_client, BotSpec.from_dir(directory), base_image, idle_timeout_s=3)
    assert time.monotonic() - started < 60
    for _ in range(50):  # the engine removes the step's container once the client has gone
        busy = [c for c in docker_client.containers.list(all=True) if "sleep 600" in " ".join(c.attrs["Config"]["Cmd"] or [])]
        if not busy:
            break
        time.sleep(0.2)
    assert not busy


def test_bot_that_cannot_start_is_reported(docker_client: docker.DockerClient, base_image: str,
                                           tmp_path: Path) -> None:
    directory = _bot(tmp_path, "needs_numpy", "import numpy\n")
    result = _build(directory)
    assert result.exit_code == 1
    assert "bot 'needs_numpy' exited with code 1" in result.output
    assert "before connecting to the referee" in result.output
    assert "ModuleNotFoundError: No module named 'numpy'" in result.output


def test_bot_that_never_connects_is_reported(docker_client: docker.DockerClient,
                                             base_image: str, tmp_path: Path) -> None:
    directory = _bot(tmp_path, "sleeper", "import time\ntime.sleep(600)\n")
    result = _build(directory, "--timeout", "3")
    assert result.exit_code == 1
    assert "did not connect to the referee within 3 s" in result.output
    assert "talon_sdk's run()" in result.output



@pytest.mark.parametrize("with_engine", [True, False])
def test_a_symlink_in_a_bot_directory_never_brings_a_host_file_into_its_image(
        docker_client: docker.DockerClient, base_image: str, tmp_path: Path, with_engine: bool) -> None:
    """A bot directory is a stranger's: a link in it to a host file must stay a link in the
    build context (also when the context is copied to add the rules engine), never become the
    file's content inside the bot's image."""
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host secret 1f2e3d\n")
    engine_step = "COPY talon_engine/referee /bot/referee\n" if with_engine else "RUN mkdir -p /bot/referee/games\n"
    directory = _bot(tmp_path, "linker", "print('x')\n", "COPY leak /bot/leak\n" + engine_step)
    if with_engine:
        (directory / "talon-engine").write_text("")
    (directory / "leak").symlink_to(secret)
    try:
        image = ensure_bot_image(docker_client, BotSpec.from_dir(directory), base_image)
    except SandboxError as error:  # the build may refuse the link: then nothing leaked either
        assert "host secret" not in str(error)
        return
    output = docker_client.containers.run(
        image.tag, ["sh", "-c", "cat /bot/leak 2>&1; ls /bot/referee/games >/dev/null && echo engine-ok"],
        remove=True, network_mode="none", user="10001")
    assert b"host secret" not in output
    assert b"engine-ok" in output


def test_image_digest_names_links_without_reading_through_them(tmp_path: Path) -> None:
    """The digest that tags a bot's image takes a link by where it points: it never reads a host
    file (or a linked directory) through a stranger's bot directory."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big.txt").write_text("one")
    directory = _bot(tmp_path, "digest_bot", "print('x')\n")
    (directory / "leak").symlink_to(outside / "big.txt")
    (directory / "tree").symlink_to(outside)
    before = directory_digest(directory)
    (outside / "big.txt").write_text("two")
    (outside / "more.txt").write_text("three")
    assert directory_digest(directory) == before
    (directory / "bot.py").write_text("print('y')\n")
    assert directory_digest(directory) != before


def test_prepare_finds_each_image_before_any_start_and_names_a_broken_bot(
        docker_client: docker.DockerClient, base_image: str, tmp_path: Path) -> None:
    good = BotSpec.from_dir(_bot(tmp_path, "fresh_bot", "print('x')\n"))
    broken = BotSpec.from_dir(_bot(tmp_path, "broken", "print('x')\n", "RUN echo about to fail && false\n"))

    async def scenario() -> None:
        async with probe_sandbox(docker_client, base_image) as (sandbox, _):
            errors = await sandbox.prepare([good, broken])
            assert list(errors) == ["broken"]
            assert "the Dockerfile of bot 'broken'" in str(errors["broken"])
            assert docker_client.images.list(name=repository_name("fresh_bot"))
            assert not docker_client.containers.list(all=True, filters={"label": f"talon.run={sandbox.run_id}"})
            since = int(time.time()) + 1  # the engine's event times are whole seconds:
            await asyncio.sleep(since - time.time())  # start after the build's second is over
            with pytest.raises(SandboxError) as raised:
                await sandbox.start(broken, SeatAccess(address="", token="tok"))
            assert str(raised.value) == str(errors["broken"])
            # not built again: a build would create a container for its RUN step (bot containers
            # of another run on this engine, named talon-*, are not builds)
            created = docker_client.events(since=since, until=int(time.time()) + 1,
                                           filters={"type": "container", "event": "create"}, decode=True)
            assert [e for e in created if not e["Actor"]["Attributes"].get("name", "").startswith("talon-")] == []

    asyncio.run(scenario())

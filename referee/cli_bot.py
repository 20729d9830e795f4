"""``talon bot``: make a new bot, build and check a bot's image, build the base image, sweep.

``talon bot build DIR`` is the gate a bot passes before it plays: its Dockerfile must build
offline on Talon's base image, and the built image must start in the sandbox (no network,
read-only, non-root) and connect to its referee socket. Failures are reported in plain
words with the bot's last output, and exit with status 1.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import click
import docker
import docker.errors

from referee.sandbox.base import BotSpec, SandboxError
from referee.sandbox.bot_image import ensure_bot_image, prune_images
from referee.sandbox.docker_sandbox import DockerSandbox, DockerSandboxConfig
from referee.sandbox.image import BaseImageRecipe, current_base_tag, ensure_base_image
from referee.sandbox.probe import ProbeListeners
from referee.sandbox.smoke import SmokeResult, smoke_check

DOCKERFILE_TEMPLATE = """\
# A Talon bot image: Talon's base image (Debian's python3 with the SDK, user 'bot') plus
# this bot. It is built with no network, so everything the bot needs must be in this
# directory. Build and check it with: talon bot build .
ARG TALON_BASE=talon/bot-base:latest
FROM ${TALON_BASE}
COPY bot.py /bot/bot.py
USER bot
CMD ["python3", "bot.py"]
"""

BOT_TEMPLATE = '''\
"""{name}: a Talon bot. It plays a random legal action; make it smarter in decide()."""

import random

from talon_sdk import Bot, run


class {cls}(Bot):
    name = "{name}"

    def __init__(self):
        self.rng = random.Random()

    def decide(self, view):
        """Return one of view.legal_actions (or an action's text, such as "draw")."""
        return self.rng.choice(view.legal_actions)


if __name__ == "__main__":
    run({cls})
'''


def _fail(message: str) -> None:
    click.echo(f"talon bot: {message}", err=True)
    sys.exit(1)


@click.group("bot")
def bot() -> None:
    """Create, build and check bots (bots run in Docker containers)."""


@bot.command("new")
@click.argument("name")
@click.option("--dir", "parent", type=click.Path(file_okay=False, path_type=Path),
              default=Path("."), show_default=True, help="Where to create the bot's directory.")
def new(name: str, parent: Path) -> None:
    """Create NAME/ with a bot.py that plays randomly and its Dockerfile."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,62}", name):
        _fail(f"bot name {name!r} must start with a letter and use only letters, digits, _ "
              "and - (at most 63 characters)")
    directory = parent / name
    if directory.exists():
        _fail(f"{directory} already exists; pick another name or remove it")
    directory.mkdir(parents=True)
    class_name = "".join(part.capitalize() for part in re.split(r"[_-]", name))
    class_name += "" if class_name.endswith("Bot") else "Bot"
    (directory / "bot.py").write_text(BOT_TEMPLATE.format(name=name, cls=class_name))
    (directory / "Dockerfile").write_text(DOCKERFILE_TEMPLATE)
    click.echo(f"created {directory}/bot.py and {directory}/Dockerfile")
    click.echo(f"next: talon bot build {directory}")


async def _smoke(image: str, spec: BotSpec, timeout: float) -> SmokeResult:
    listeners = ProbeListeners()
    sandbox = DockerSandbox(listeners, DockerSandboxConfig(build_missing=False))
    try:
        return await smoke_check(sandbox, listeners, image, spec, timeout)
    finally:
        await sandbox.close()


@bot.command("build")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--base", help="Base image tag (default: the one for this checkout's SDK, built "
              "if missing).")
@click.option("--check/--no-check", default=True, show_default=True,
              help="Start the built image once and wait for it to connect.")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds the check waits.")
def build(directory: Path, base: str | None, check: bool, timeout: float) -> None:
    """Build the bot in DIRECTORY offline and check that it starts in the sandbox."""
    try:
        spec = BotSpec.from_dir(directory)
        client = docker.from_env()
        base = base or current_base_tag()
        try:
            client.images.get(base)
        except docker.errors.ImageNotFound:
            if base != current_base_tag():
                raise SandboxError(f"base image {base!r} does not exist") from None
            click.echo(f"base image {base} missing: building it (about a minute, needs root)")
            ensure_base_image(client, BaseImageRecipe.from_host(), say=click.echo)
        image = ensure_bot_image(client, spec, base)
        click.echo(f"{'built' if image.built else 'up to date'}: {image.tag}"
                   + (f" in {image.seconds} s" if image.built else ""))
        if check:
            result = asyncio.run(_smoke(image.tag, spec, timeout))
            if not result.ok:
                _fail(result.message)
            click.echo(f"check: {result.message}")
    except SandboxError as error:
        _fail(str(error))
    except docker.errors.DockerException as error:
        _fail(f"cannot use the Docker engine: {error}")


@bot.command("base-image")
@click.option("--suite", help="Debian suite (default: this machine's release).")
@click.option("--mirror", help="Debian mirror URI (default: the one apt uses here).")
def base_image(suite: str | None, mirror: str | None) -> None:
    """Build (or reuse) the bot base image; print a JSON report. Needs root."""
    if os.geteuid() != 0:
        _fail("building the base image needs root (debootstrap and chroot)")
    try:
        report = ensure_base_image(docker.from_env(), BaseImageRecipe.from_host(suite, mirror),
                                   say=lambda line: click.echo(line, err=True))
    except (SandboxError, docker.errors.DockerException) as error:
        _fail(str(error))
    click.echo(json.dumps(json.loads(report.as_json()), indent=2))


@bot.command("sweep")
@click.option("--images", is_flag=True,
              help="Also remove base images of older SDKs and the bot images built on them.")
def sweep(images: bool) -> None:
    """Remove bot containers and socket directories left by Talon runs that died."""
    try:
        sandbox = DockerSandbox(ProbeListeners())
        removed = sandbox.sweep()
        if images:
            removed += [f"image {tag}" for tag in prune_images(sandbox.client, current_base_tag())]
    except (SandboxError, docker.errors.DockerException) as error:
        _fail(str(error))
    click.echo("\n".join(removed) if removed else "nothing to remove")

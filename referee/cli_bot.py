"""``talon bot``: make a new bot, build and check a bot's image, build the base image, sweep.

``talon bot build DIR`` is the gate a bot passes before it plays: its Dockerfile must build
offline on Talon's base image, and the built image must start in the sandbox (no network,
read-only, non-root) and connect to its referee socket. Failures are reported in plain
words with the bot's last output, and exit with status 1. The Docker side lives in
:mod:`referee.sandbox.workflow`, imported only when a command runs.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import NoReturn

import click

from referee.sandbox.base import SandboxError

DOCKERFILE_TEMPLATE = """\
# A Talon bot image: Talon's base image (Debian's python3 with the SDK, user 'bot') plus
# this whole directory, in /bot. It is built with no network and has no pip, so everything
# the bot needs (its other modules, pure-Python packages, data files) must be in this
# directory. Build and check it with: talon bot build .
ARG TALON_BASE=talon/bot-base:latest
FROM ${TALON_BASE}
COPY . /bot/
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


def _fail(message: str) -> NoReturn:
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


@bot.command("build")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--base", help="Base image tag (default: the one for this checkout's SDK, built "
              "if missing).")
@click.option("--check/--no-check", default=True, show_default=True,
              help="Start the built image once and wait for it to connect.")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds the check waits.")
def build(directory: Path, base: str | None, check: bool, timeout: float) -> None:
    """Build the bot in DIRECTORY offline and check that it starts in the sandbox."""
    from referee.sandbox import workflow

    try:
        workflow.build_bot(directory, base, check, timeout, say=click.echo)
    except SandboxError as error:
        _fail(str(error))


@bot.command("base-image")
@click.option("--suite", help="Debian suite (default: this machine's release).")
@click.option("--mirror", help="Debian mirror URI (default: the one apt uses here).")
def base_image(suite: str | None, mirror: str | None) -> None:
    """Build (or reuse) the bot base image; print a JSON report. Needs root."""
    from referee.sandbox import workflow

    if os.geteuid() != 0:
        _fail("building the base image needs root (debootstrap and chroot)")
    try:
        report = workflow.build_base(suite, mirror, say=lambda line: click.echo(line, err=True))
    except SandboxError as error:
        _fail(str(error))
    click.echo(json.dumps(json.loads(report.as_json()), indent=2))


@bot.command("sweep")
@click.option("--images", is_flag=True,
              help="Also remove base images of older SDKs and the bot images built on them.")
def sweep(images: bool) -> None:
    """Remove bot containers and socket directories left by Talon runs that died."""
    from referee.sandbox import workflow

    try:
        removed = workflow.sweep(images)
    except SandboxError as error:
        _fail(str(error))
    click.echo("\n".join(removed) if removed else "nothing to remove")

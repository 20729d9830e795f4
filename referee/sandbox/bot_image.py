"""Turn a bot directory (``bot.py`` + ``Dockerfile``) into an image, offline.

A bot's Dockerfile starts ``ARG TALON_BASE=talon/bot-base:latest`` / ``FROM ${TALON_BASE}``;
the builder passes the base tag as that build argument. Builds run with ``network_mode=
"none"`` and ``pull=False``: nothing can be fetched, so a Dockerfile that needs the network
fails here, at build time, with a message saying so, instead of at match time.

Images are tagged ``talon/bot-<name>:<digest>`` where the digest covers every file of the
bot directory and the base image's id, so an unchanged bot is not rebuilt.

A bot that simulates with Talon's own rules engine (a search bot) puts a file named
``talon-engine`` in its directory. The build context is then a copy of the directory plus
``talon_engine/referee/``: the pure engine only (``referee/__init__.py``, ``referee/cards.py``
and ``referee/games/``), never the service, sandbox or tournament code; the bot's Dockerfile
copies it in (``COPY talon_engine/referee /bot/referee``). Those files count in the digest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import docker
import docker.errors
import requests
import urllib3.exceptions

from referee.sandbox.base import BotSpec, SandboxError, printable
from referee.sandbox.image import LATEST_TAG

BOT_REPOSITORY_PREFIX = "talon/bot-"
_SKIP_NAMES = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache"}
ENGINE_MARKER = "talon-engine"
"""A file of this name in a bot directory asks the build for the pure rules engine."""
ENGINE_CONTEXT_DIR = "talon_engine"
"""Where the engine lands in the build context (as ``talon_engine/referee/...``)."""
BUILD_MEMORY_BYTES = 2 << 30
"""Memory (and memory + swap: no swap) of each build step's container. A bot's Dockerfile is a
stranger's too: without a cap one ``RUN`` step could take the whole host's memory."""
BUILD_CPU_SHARES = 256
"""CPU weight of each build step (Docker's default is 1024): a build running beside matches
(a tournament building a bot on its first start) yields the CPU to them."""
BUILD_IDLE_TIMEOUT_S = 300.0
"""A build that prints nothing for this long is given up (``RUN sleep infinity`` would
otherwise hang ``talon bot build`` and a tournament's start for ever; builds have no network,
so a step waiting on one waits for nothing). The engine then removes the step's container."""
_NETWORK_SIGNS = ("Temporary failure in name resolution", "Network is unreachable",
                  "Could not resolve", "NewConnectionError", "No matching distribution")


@dataclasses.dataclass(frozen=True)
class BotImage:
    """A bot's built image and whether this call built it."""

    tag: str
    image_id: str
    built: bool
    seconds: float


def repository_name(bot_name: str) -> str:
    """Docker repository name for a bot: lowercase, only ``[a-z0-9._-]``."""
    safe = re.sub(r"[^a-z0-9._-]+", "-", bot_name.lower()).strip("-._")
    if not safe:
        raise SandboxError(f"bot name {bot_name!r} has no letters or digits to name an image")
    return BOT_REPOSITORY_PREFIX + safe[:100]


def directory_digest(directory: Path) -> str:
    """Hash of every file in the bot directory (relative path and bytes; a symbolic link by
    where it points, never by what it points to: the directory is a stranger's, and its links
    may name any host file)."""
    digest = hashlib.sha256()
    for path in sorted(_walk(directory)):
        relative = path.relative_to(directory)
        if path.is_symlink():
            digest.update(str(relative).encode() + b"\0->" + os.readlink(path).encode() + b"\0")
        elif path.is_file() and path.suffix != ".pyc":
            digest.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _walk(directory: Path) -> list[Path]:
    """Every entry under ``directory`` but the skipped names, not descending into linked
    directories."""
    found = []
    for root, dirs, files in os.walk(directory, followlinks=False):
        dirs[:] = [d for d in dirs if d not in _SKIP_NAMES]
        found += [Path(root, name) for name in files + [d for d in dirs if Path(root, d).is_symlink()]]
    return found


def engine_files() -> list[tuple[str, Path]]:
    """The pure rules engine's sources as (path in the context, file): ``referee/__init__.py``,
    ``referee/cards.py`` and every ``.py`` under ``referee/games/``."""
    package = Path(__file__).resolve().parents[1]
    files = [package / "__init__.py", package / "cards.py"]
    files += sorted(p for p in (package / "games").rglob("*.py") if "__pycache__" not in p.parts)
    return [(f"{ENGINE_CONTEXT_DIR}/referee/{p.relative_to(package)}", p) for p in files]


def _engine_digest() -> str:
    digest = hashlib.sha256()
    for name, path in engine_files():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _explain_build_error(bot: BotSpec, error: docker.errors.BuildError) -> str:
    """Plain words for a failed ``docker build``: the failing step and its last output."""
    lines = [printable(str(entry.get("stream", ""))).rstrip() for entry in error.build_log]
    steps = [line for line in lines if line.startswith("Step ")]
    output = [line for line in lines if line and not line.startswith(
        ("Step ", " ---> ", "Removing intermediate container"))]
    hint = ""
    reason = str(error.msg)
    if "pull access denied" in reason or "lookup" in reason or "dial tcp" in reason:
        hint = (
            "\nNo image can be pulled here: the Dockerfile must start with "
            "'ARG TALON_BASE=talon/bot-base:latest' and 'FROM ${TALON_BASE}'."
        )
    elif any(sign in "\n".join(output) for sign in _NETWORK_SIGNS):
        hint = "\nBuilds have no network: bundle what the bot needs in its directory."
    elif "non-zero code: 137" in reason:
        hint = (f"\nThe step was killed (exit 137): build steps are capped at "
                f"{BUILD_MEMORY_BYTES >> 20} MiB of memory.")
    return (
        f"the Dockerfile of bot {bot.name!r} ({bot.directory / 'Dockerfile'}) failed to build"
        + (f" at {steps[-1]}" if steps else "")
        + f": {reason}"
        + ("\n  " + "\n  ".join(output[-8:]) if output else "")
        + hint
    )


def ensure_bot_image(
    client: docker.DockerClient, bot: BotSpec, base_tag: str = LATEST_TAG,
    idle_timeout_s: float = BUILD_IDLE_TIMEOUT_S,
) -> BotImage:
    """Build ``bot``'s image unless an image of the same content already exists.

    Builds run offline, with each step capped at :data:`BUILD_MEMORY_BYTES` of memory and a low
    CPU weight, and are given up after ``idle_timeout_s`` seconds without output."""
    if not (bot.directory / "Dockerfile").is_file():
        raise SandboxError(
            f"bot {bot.name!r} has no Dockerfile in {bot.directory}: the docker sandbox builds "
            "bots from one ('talon bot new NAME' writes a starting point)"
        )
    try:
        base = client.images.get(base_tag)
    except docker.errors.ImageNotFound:
        raise SandboxError(
            f"base image {base_tag!r} is missing: build it with scripts/build-base-image"
        ) from None
    engine = (bot.directory / ENGINE_MARKER).is_file()
    digest = hashlib.sha256(
        (directory_digest(bot.directory) + str(base.id) + (_engine_digest() if engine else "")).encode()
    ).hexdigest()
    tag = f"{repository_name(bot.name)}:{digest[:16]}"
    start = time.monotonic()
    try:
        return BotImage(tag, str(client.images.get(tag).id), False, 0.0)
    except docker.errors.ImageNotFound:
        pass
    try:
        with tempfile.TemporaryDirectory(prefix="talon-build-") as tmp:
            context = bot.directory
            if engine:
                context = Path(tmp) / "context"
                # symlinks=True: a link stays a link (copying it would follow it to a host file)
                shutil.copytree(bot.directory, context, symlinks=True,
                                ignore=shutil.ignore_patterns(*_SKIP_NAMES, "*.pyc"))
                for name, path in engine_files():
                    (context / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, context / name)
            image, _ = client.images.build(
                path=str(context), tag=tag, buildargs={"TALON_BASE": base_tag},
                network_mode="none", pull=False, rm=True, forcerm=True,
                container_limits={"memory": BUILD_MEMORY_BYTES, "memswap": BUILD_MEMORY_BYTES,
                                  "cpushares": BUILD_CPU_SHARES},
                labels={"talon.bot": bot.name, "talon.base": base_tag}, timeout=max(1, round(idle_timeout_s)),
            )
    except docker.errors.BuildError as error:
        raise SandboxError(_explain_build_error(bot, error)) from None
    except (requests.exceptions.RequestException, urllib3.exceptions.TimeoutError):  # a step hangs
        raise SandboxError(
            f"the Dockerfile of bot {bot.name!r} ({bot.directory / 'Dockerfile'}) was given up: a build step "
            f"printed nothing for {idle_timeout_s:g} s (builds have no network, so a step that waits for one "
            "waits for ever)"
        ) from None
    except docker.errors.APIError as error:
        raise SandboxError(
            f"the Docker engine refused to build bot {bot.name!r}: {error.explanation}"
        ) from None
    return BotImage(tag, str(image.id), True, round(time.monotonic() - start, 2))


def prune_images(client: docker.DockerClient, keep_base: str) -> list[str]:
    """Remove bot images built on another base than ``keep_base``, then those other bases.

    Images a container still uses are kept (the engine refuses); returns what was removed."""
    removed = []
    for image in client.images.list(filters={"label": "talon.bot"}):
        if image.labels.get("talon.base") != keep_base:
            removed += _remove_tags(client, image.tags)
    base_repository = keep_base.split(":")[0]
    for image in client.images.list(name=base_repository):
        if keep_base not in image.tags:
            removed += _remove_tags(client, image.tags)
    return removed


def _remove_tags(client: docker.DockerClient, tags: list[str]) -> list[str]:
    removed = []
    for tag in tags:
        try:
            client.images.remove(tag)
            removed.append(tag)
        except docker.errors.APIError:
            continue  # in use by a container, or already gone
    return removed

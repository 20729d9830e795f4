"""What the ``talon bot`` commands do, behind one error type.

Kept out of :mod:`referee.cli_bot` so that ``talon`` starts without importing the Docker
client (about 0.4 s): the CLI imports this module only when a bot command runs. Every
Docker error comes out as a :class:`~referee.sandbox.base.SandboxError` in words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import docker
import docker.errors

from referee.sandbox.base import BotSpec, SandboxError
from referee.sandbox.bot_image import ensure_bot_image, prune_images
from referee.sandbox.docker_sandbox import DockerSandbox, DockerSandboxConfig
from referee.sandbox.image import (
    BaseImageRecipe, BuildReport, current_base_tag, ensure_base_image,
)
from referee.sandbox.probe import ProbeListeners
from referee.sandbox.smoke import SmokeResult, smoke_check

Say = Callable[[str], None]


def _client() -> docker.DockerClient:
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as error:
        raise SandboxError(f"cannot reach the Docker engine: {error}") from None
    return client


async def _smoke(image: str, spec: BotSpec, timeout: float) -> SmokeResult:
    listeners = ProbeListeners()
    sandbox = DockerSandbox(listeners, DockerSandboxConfig(build_missing=False))
    try:
        return await smoke_check(sandbox, listeners, image, spec, timeout)
    finally:
        await sandbox.close()


def build_bot(directory: Path, base: str | None, check: bool, timeout: float, say: Say) -> None:
    """Build the bot offline (the base image first if it is missing), then start it once.

    :raises SandboxError: for a broken Dockerfile, or a bot that does not start and connect.
    """
    spec = BotSpec.from_dir(directory)
    client = _client()
    try:
        current = current_base_tag()
        base = base or current
        try:
            client.images.get(base)
        except docker.errors.ImageNotFound:
            if base != current:
                raise SandboxError(f"base image {base!r} does not exist") from None
            say(f"base image {base} missing: building it (about a minute, needs root)")
            ensure_base_image(client, BaseImageRecipe.from_host(), say=say)
        image = ensure_bot_image(client, spec, base)
        say(f"{'built' if image.built else 'up to date'}: {image.tag}"
            + (f" in {image.seconds} s" if image.built else ""))
        if check:
            result = asyncio.run(_smoke(image.tag, spec, timeout))
            if not result.ok:
                raise SandboxError(result.message)
            say(f"check: {result.message}")
    except docker.errors.DockerException as error:
        raise SandboxError(f"the Docker engine failed: {error}") from None


def build_base(suite: str | None, mirror: str | None, say: Say) -> BuildReport:
    """Build (or reuse) the base image of this machine's release and this checkout's SDK."""
    try:
        return ensure_base_image(_client(), BaseImageRecipe.from_host(suite, mirror), say=say)
    except docker.errors.DockerException as error:
        raise SandboxError(f"the Docker engine failed: {error}") from None


def sweep(images: bool) -> list[str]:
    """Remove what dead runs left; with ``images``, also images of older SDKs."""
    try:
        sandbox = DockerSandbox(ProbeListeners(), client=_client())
        removed = sandbox.sweep()
        if images:
            removed += [f"image {tag}" for tag in prune_images(sandbox.client, current_base_tag())]
    except docker.errors.DockerException as error:
        raise SandboxError(f"the Docker engine failed: {error}") from None
    return removed

"""Shared by the sandbox tests: a sandbox on probe listeners, and reading hostile bots."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import docker

from referee.sandbox.docker_limits import MIB, DockerLimits
from referee.sandbox.docker_sandbox import DockerSandbox, DockerSandboxConfig
from referee.sandbox.probe import ProbeListeners

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "sample_bots" / "hostile"
PROBE = Path(__file__).resolve().parent / "bots" / "probe"
SMALL = DockerLimits(memory_bytes=256 * MIB, pids=64, tmpfs_bytes=16 * MIB, cpus=0.5)
"""Tighter limits so hostile bots hit them quickly."""


@asynccontextmanager
async def probe_sandbox(
    client: docker.DockerClient, base: str, limits: DockerLimits | None = None,
    state_root: Path | None = None,
) -> AsyncIterator[tuple[DockerSandbox, ProbeListeners]]:
    listeners = ProbeListeners()
    config = DockerSandboxConfig(limits=limits or DockerLimits(), base_image=base)
    if state_root is not None:
        config = dataclasses.replace(config, state_root=state_root)
    sandbox = DockerSandbox(listeners, config, client)
    try:
        yield sandbox, listeners
    finally:
        await sandbox.close()


def result_of(logs: str) -> dict[str, Any]:
    """The ``RESULT {json}`` line a hostile bot prints last."""
    lines = [line for line in logs.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise AssertionError(f"the bot printed no RESULT line; its output:\n{logs}")
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
    return result


def escapes(logs: str) -> list[str]:
    return [line for line in logs.splitlines() if line.startswith("ESCAPED")]

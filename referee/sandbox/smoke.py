"""Prove a built bot image can start: run it boxed, with no network, and wait until it
connects to its referee socket (a probe socket that only notes the connection).

This catches what a Dockerfile build cannot: a bot.py that does not import (a typo, a
missing package, a package that needed the network at run time), a program that cannot run
in the image, a bot that crashes or exits at once, one that runs out of memory while
starting, or one that never connects.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

from referee.sandbox.base import PYTHON_ENTRY, BotSpec, SeatAccess, printable
from referee.sandbox.docker_sandbox import DockerBotHandle, DockerSandbox
from referee.sandbox.probe import ProbeListeners

SMOKE_TOKEN = "smoke-check"


@dataclasses.dataclass(frozen=True)
class SmokeResult:
    """Whether the bot reached its socket, after how long, and what to tell its author."""

    ok: bool
    seconds: float
    message: str
    logs: str = ""


def _indent(text: str, lines: int = 20) -> str:
    tail = printable(text).strip().splitlines()[-lines:]
    return "\n".join("    " + line for line in tail) if tail else "    (no output)"


async def _outcome(handle: DockerBotHandle, listeners: ProbeListeners, bot: BotSpec,
                   timeout: float) -> SmokeResult:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        connection = await listeners.wait_connected(handle.socket_path, 0.25)
        if connection is not None:
            seconds = round(connection.at - handle.started_at, 2)
            return SmokeResult(True, seconds, f"bot {bot.name!r} started and connected to the "
                               f"referee socket in {seconds} s", handle.logs())
        status = await asyncio.to_thread(handle.status)
        if not status.running:
            logs = handle.logs()
            seconds = round(time.monotonic() - handle.started_at, 2)
            if status.oom_killed:
                why = "was killed for running out of memory"
            else:
                why = f"exited with code {status.exit_code}"
            return SmokeResult(
                False, seconds,
                f"bot {bot.name!r} {why} {seconds} s after start, before connecting to the "
                f"referee. Its last output:\n{_indent(logs)}", logs,
            )
    logs = handle.logs()
    return SmokeResult(
        False, timeout,
        f"bot {bot.name!r} still runs but did not connect to the referee within {timeout:.0f} s. "
        f"{_connect_hint(bot)} "
        f"Its last output:\n{_indent(logs)}", logs,
    )


def _connect_hint(bot: BotSpec) -> str:
    if bot.entry == PYTHON_ENTRY:
        return "A bot must call talon_sdk's run() when started as 'python3 bot.py'."
    return ("A bot program must connect to TALON_ADDRESS and send its Hello with the token from TALON_TOKEN or "
            "TALON_TOKEN_FILE (docs/bot_protocol.md).")


async def smoke_check(sandbox: DockerSandbox, listeners: ProbeListeners, image: str,
                      bot: BotSpec, timeout: float = 30.0) -> SmokeResult:
    """Start ``image`` once for ``bot`` in ``sandbox`` (whose listeners are ``listeners``)."""
    handle = await sandbox.start_image(image, bot, SeatAccess(address="", token=SMOKE_TOKEN))
    try:
        return await _outcome(handle, listeners, bot, timeout)
    finally:
        await handle.stop()

"""The process sandbox: each bot is a child process in its own session and directory.

It isolates only what a process can: a fresh working directory holding a copy of the bot's
files, an environment made from scratch (no secrets of the referee leak in), its own process
group and session so the whole tree can be killed at once, and output captured into a bounded
buffer for failure reports. It is for development and trusted bots; untrusted code belongs in
the Docker sandbox (same seam, :mod:`referee.sandbox.base`).

Stopping kills the bot's process group and every descendant found under it (even one that
started its own session), then reaps the child, so no zombie is left behind.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import os
import platform
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from referee.sandbox.base import PYTHON_ENTRY, BotHandle, BotSpec, Sandbox, SandboxError, SandboxKind, SeatAccess

LOG_LIMIT = 64 * 1024
"""Bytes of a bot's output kept (the most recent)."""
HANDLES_KEPT = 256
"""Stopped bots whose handles (and logs) the sandbox keeps for reports; running ones are all kept."""


def _descendants(root: int) -> list[int]:
    """Every live process under ``root`` (by parent links in /proc), deepest last."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        children[int(fields[1])].append(int(entry))
    found: list[int] = []
    queue = [root]
    while queue:
        pid = queue.pop()
        for child in children.get(pid, []):
            found.append(child)
            queue.append(child)
    return found


class ProcessHandle(BotHandle):
    """A bot running as a child process."""

    def __init__(self, process: asyncio.subprocess.Process, workdir: Path, name: str) -> None:
        self.process = process
        self.workdir = workdir
        self.name = name
        self._log: collections.deque[bytes] = collections.deque()
        self._log_size = 0
        self._pump = asyncio.ensure_future(self._collect())
        self._stopped = False

    @property
    def pid(self) -> int:
        return self.process.pid

    async def _collect(self) -> None:
        stream = self.process.stdout
        if stream is None:
            return
        while True:
            chunk = await stream.read(4096)
            if not chunk:
                return
            self._log.append(chunk)
            self._log_size += len(chunk)
            while self._log_size > LOG_LIMIT and len(self._log) > 1:
                self._log_size -= len(self._log.popleft())

    def is_alive(self) -> bool:
        return self.process.returncode is None

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` ran (the process is gone and its directory removed)."""
        return self._stopped

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def logs(self) -> str:
        return b"".join(self._log).decode("utf-8", "replace")[-LOG_LIMIT:]

    async def stop(self) -> None:
        """Kill the bot's process group and descendants, reap the child, remove its directory."""
        if self._stopped:
            return
        self._stopped = True
        pid = self.process.pid
        tree = _descendants(pid) if self.process.returncode is None else []
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        for child in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)
        try:
            with contextlib.suppress(ProcessLookupError):
                await asyncio.wait_for(self.process.wait(), 10)
            # asyncio.wait, not wait_for: the pump ending (even cancelled) is no error here, and
            # a cancellation of *this* task (Ctrl-C) must go on up, not be taken for the pump's
            done, _ = await asyncio.wait({self._pump}, timeout=1)
            if done and not self._pump.cancelled():
                self._pump.exception()  # retrieved: a log pipe that broke while the bot died
        finally:
            self._pump.cancel()
            shutil.rmtree(self.workdir, ignore_errors=True)


def _start_words(bot: BotSpec, err: BaseException) -> str:
    """Why the bot's entry would not start, in terms of what to fix. The kernel's own words
    mislead here: a missing ``#!`` interpreter is reported as the entry itself missing, and a
    script without a ``#!`` line as a program of the wrong format."""
    if bot.entry == PYTHON_ENTRY or not isinstance(err, OSError):
        return str(err)
    entry = "./" + bot.entry
    try:
        with open(bot.directory / bot.entry, "rb") as file:
            head = file.read(4)
    except OSError:
        head = b""
    if isinstance(err, FileNotFoundError):
        if head == b"\x7fELF":  # the kernel found the program but not the loader it names
            return f"{entry}: the dynamic loader it was linked for is not here: link it statically ({err.strerror})"
        return f"{entry}: the interpreter its #! line names is not installed here ({err.strerror})"
    if err.errno == errno.ENOEXEC:
        if head == b"\x7fELF":
            return f"{entry} is a program for another machine: build it for Linux on {platform.machine()}"
        if head.startswith(b"#!"):
            return f"{entry}: its #! line cannot be run ({err.strerror})"
        return (f"{entry} is neither a program nor a script: a script's first line names its interpreter "
                "(#!/bin/sh, #!/usr/bin/env ruby, ...)")
    return str(err)


class ProcessSandbox(Sandbox):
    """Starts each bot (``python3 bot.py``, or ``./bot`` for a bot in another language) in a
    private copy of its directory."""

    kind = SandboxKind.PROCESS

    def __init__(self, python: str | None = None, root: Path | None = None) -> None:
        self.python = python or sys.executable
        self.root = root
        self._handles: list[ProcessHandle] = []

    def environment(self, access: SeatAccess, workdir: Path) -> dict[str, str]:
        """The bot's whole environment: nothing from the referee's but PATH and the locale."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(workdir),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "TALON_PARENT_PID": str(os.getpid()),  # a warm bot stops when its parent is no longer this
        }
        env.update(access.environment())
        return env

    async def start(self, bot: BotSpec, access: SeatAccess) -> ProcessHandle:
        """Copy the bot's directory to a fresh one and start the bot's entry there."""
        if not (bot.directory / bot.entry).is_file():
            raise SandboxError(f"bot {bot.name!r}: {bot.directory}/{bot.entry} is missing")
        workdir = Path(tempfile.mkdtemp(prefix=f"talon-{bot.name[:20]}-", dir=self.root))
        try:
            shutil.copytree(bot.directory, workdir / "bot", symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            process = await asyncio.create_subprocess_exec(
                *bot.command(self.python), cwd=workdir / "bot", env=self.environment(access, workdir),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except (OSError, shutil.Error) as err:
            shutil.rmtree(workdir, ignore_errors=True)
            raise SandboxError(f"bot {bot.name!r}: {_start_words(bot, err)}") from None
        except BaseException:  # cancelled (Ctrl-C) mid-start: asyncio kills the child; drop its copy too
            shutil.rmtree(workdir, ignore_errors=True)
            raise
        handle = ProcessHandle(process, workdir, bot.name)
        self._handles.append(handle)
        if len(self._handles) > 2 * HANDLES_KEPT:
            stopped = [h for h in self._handles if h.stopped]
            drop = set(map(id, stopped[: max(0, len(stopped) - HANDLES_KEPT)]))
            self._handles = [h for h in self._handles if id(h) not in drop]
        return handle

    @property
    def handles(self) -> list[ProcessHandle]:
        """Every bot this sandbox started and has not closed (stopped ones keep their logs)."""
        return list(self._handles)

    async def close(self) -> None:
        """Stop every bot this sandbox started."""
        handles, self._handles = self._handles, []
        await asyncio.gather(*(h.stop() for h in handles), return_exceptions=True)

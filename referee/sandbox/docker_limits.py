"""What a bot container may use, checked once, and how that maps onto Docker's settings.

Every setting here closes one way out of the box (see docs/sandbox.md for the table):
no network, read-only image, a small tmpfs as the only writable place, no capabilities,
no privilege gain through setuid, a non-root uid, and cgroup caps on pids, memory (with no
swap, so a hog is OOM-killed rather than thrashing the host), CPU and open files.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from docker.types import LogConfig, Ulimit

from referee.sandbox.base import SandboxError

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
_SIZE = re.compile(r"(\d+)([kmg]?)i?b?", re.IGNORECASE)
_RUNTIME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def parse_size(text: str) -> int:
    """``"512m"`` / ``"1g"`` / ``"1GiB"`` / ``"4096"`` to bytes."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise SandboxError(f"size {text!r} is not a number of bytes like 512m, 1g or 1GiB")
    scale = {"": 1, "k": KIB, "m": MIB, "g": GIB}[match.group(2).lower()]
    return int(match.group(1)) * scale


def _at_least(name: str, value: float, low: float, unit: str = "") -> None:
    if value < low:
        raise SandboxError(f"{name} is {value}{unit}; it must be at least {low}{unit}")


@dataclasses.dataclass(frozen=True)
class DockerLimits:
    """Per-container limits; defaults suit one Python gRPC bot (1 CPU, 1 GiB, 256 tasks)."""

    cpus: float = 1.0
    """CPU share as a CFS quota (``--cpus``); a bot using more is throttled, not killed."""
    memory_bytes: int = GIB
    """RAM cap; swap is set equal so there is none. Includes tmpfs and /dev/shm pages."""
    pids: int = 256
    """Tasks (processes *and* threads) in the container: the fork-bomb guard. A gRPC bot
    idles at about 8 threads."""
    nofile: int = 256
    """Open file descriptors per process (soft = hard)."""
    tmpfs_bytes: int = 64 * MIB
    """Size of /tmp, the only writable directory (noexec, nosuid, nodev)."""
    shm_bytes: int = 8 * MIB
    """Size of /dev/shm, which Docker keeps writable even on a read-only root."""
    log_bytes: int = MIB
    """Cap of the json-file log the engine keeps (a chatty bot cannot fill the disk)."""
    uid: int = 10001
    """The first uid (and gid) bots run as; never 0. A bot's socket and token are chowned to its."""
    uid_span: int = 4096
    """Each container runs as its own uid in ``[uid, uid + uid_span)`` (see :meth:`uid_for`):
    per-user kernel counters (inotify instances, POSIX message queues, pipe buffers, pending
    signals) are then never shared between two bots, so one cannot use up another's (measured
    with one uid for all: a bot holding 128 inotify instances left its opponent none). 1 runs
    every bot as ``uid``."""
    runtime: str | None = None
    """OCI runtime, e.g. ``runsc`` (gVisor, which needs ``--host-uds=open`` in its
    ``runtimeArgs`` for the socket); ``None`` keeps the engine's default (runc)."""
    cpuset: str | None = None
    """Pin to these CPUs (``"0"``, ``"0-1"``) for steadier timings; ``None`` does not pin."""

    def __post_init__(self) -> None:
        _at_least("cpus", self.cpus, 0.01)
        _at_least("memory_bytes", self.memory_bytes, 16 * MIB, " bytes")
        _at_least("pids", self.pids, 16)
        _at_least("nofile", self.nofile, 32)
        _at_least("tmpfs_bytes", self.tmpfs_bytes, MIB, " bytes")
        _at_least("shm_bytes", self.shm_bytes, 64 * KIB, " bytes")
        _at_least("log_bytes", self.log_bytes, 64 * KIB, " bytes")
        _at_least("uid", self.uid, 1)
        _at_least("uid_span", self.uid_span, 1)
        if self.uid + self.uid_span > 65534:
            raise SandboxError(f"uid + uid_span ({self.uid + self.uid_span}) must stay below 65534 (nobody)")
        if self.tmpfs_bytes + self.shm_bytes >= self.memory_bytes:
            raise SandboxError(
                f"tmpfs_bytes + shm_bytes ({self.tmpfs_bytes + self.shm_bytes}) must be below "
                f"memory_bytes ({self.memory_bytes}): their pages count against the memory cap"
            )
        if self.runtime is not None and not _RUNTIME.fullmatch(self.runtime):
            raise SandboxError(f"runtime {self.runtime!r} is not a runtime name like 'runsc'")
        if self.cpuset is not None and not re.fullmatch(r"[0-9,-]+", self.cpuset):
            raise SandboxError(f"cpuset {self.cpuset!r} must list CPUs like '0', '0-1' or '0,2'")

    def uid_for(self, number: int) -> int:
        """The uid of the ``number``-th container (any int; taken modulo ``uid_span``)."""
        return self.uid + number % self.uid_span

    def create_kwargs(self, uid: int | None = None) -> dict[str, Any]:
        """The ``containers.create()`` keyword arguments that enforce these limits, for a
        container running as ``uid`` (default: the first uid)."""
        user = self.uid if uid is None else uid
        kwargs: dict[str, Any] = {
            "user": f"{user}:{user}",
            "network_mode": "none",
            # No libnetwork sandbox at all: the runtime still gives the container a network
            # namespace of its own holding only `lo`, but the engine skips its prestart hook,
            # which re-executes the whole dockerd binary for every start (half the CPU a
            # container start costs here: docs/performance.md, "Fourth session").
            "network_disabled": True,
            "ipc_mode": "private",  # whatever the engine's default: no System V IPC shared with anyone
            "read_only": True,
            "tmpfs": {"/tmp": f"rw,noexec,nosuid,nodev,size={self.tmpfs_bytes},mode=1777"},
            "shm_size": self.shm_bytes,
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "pids_limit": self.pids,
            "mem_limit": self.memory_bytes,
            "memswap_limit": self.memory_bytes,
            "nano_cpus": int(self.cpus * 1_000_000_000),
            "ulimits": [
                Ulimit(name="nofile", soft=self.nofile, hard=self.nofile),
                Ulimit(name="core", soft=0, hard=0),
                Ulimit(name="fsize", soft=self.tmpfs_bytes, hard=self.tmpfs_bytes),
            ],
            "log_config": LogConfig(
                type=LogConfig.types.JSON,
                config={"max-size": str(self.log_bytes), "max-file": "1"},
            ),
            "init": True,
            "stop_signal": "SIGKILL",
        }
        if self.runtime is not None:
            kwargs["runtime"] = self.runtime
        if self.cpuset is not None:
            kwargs["cpuset_cpus"] = self.cpuset
        return kwargs


LIMIT_OPTIONS: Mapping[str, str] = {"bot_cpus": "cpus", "bot_memory_bytes": "memory_bytes", "bot_pids": "pids",
                                    "bot_runtime": "runtime"}
"""A tournament's options that set container limits, and the :class:`DockerLimits` field each
sets (the CLI's ``--bot-cpus``, ``--bot-memory``, ``--bot-pids``, ``--bot-runtime``)."""


def limits_from_options(options: Mapping[str, Any]) -> DockerLimits:
    """The limits a tournament's options ask for, the defaults for the rest.

    :raises SandboxError: for a value the limits refuse (the message names it and the bound).
    """
    return DockerLimits(**{field: options[key] for key, field in LIMIT_OPTIONS.items() if key in options})

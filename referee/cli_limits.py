"""The container-limit options ``talon play`` and ``talon tournament`` share.

Each flag sets one field of :class:`referee.sandbox.docker_limits.DockerLimits` for every bot
container of the run; unset flags keep the defaults (1 CPU, 1 GiB, 256 tasks, the engine's
runtime). They are checked before anything starts, and refused with the process sandbox, which
has no containers to limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

FLAGS = {"bot_cpus": "--bot-cpus", "bot_memory_bytes": "--bot-memory", "bot_pids": "--bot-pids",
         "bot_runtime": "--bot-runtime"}


def container_limit_options(command: F) -> F:
    """Add ``--bot-cpus``, ``--bot-memory``, ``--bot-pids`` and ``--bot-runtime`` to ``command``."""
    options = [
        click.option("--bot-cpus", type=float, help="CPUs per bot container (CFS quota). [default: 1]"),
        click.option("--bot-memory", help="Memory per bot container, no swap: 512m, 1g, 2GiB. [default: 1g]"),
        click.option("--bot-pids", type=int, help="Tasks (processes + threads) per bot container. [default: 256]"),
        click.option("--bot-runtime", help="OCI runtime of the bot containers, e.g. runsc (gVisor, registered "
                                           "with the engine). [default: the engine's]"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def limits_from_flags(bot_cpus: float | None, bot_memory: str | None, bot_pids: int | None,
                      bot_runtime: str | None, sandbox_kind: str) -> dict[str, Any]:
    """The limits the flags ask for, as a tournament's options (only the ones given).

    :raises click.UsageError: for limits with the process sandbox, or a value the limits refuse.
    """
    from referee.sandbox.base import SandboxError
    from referee.sandbox.docker_limits import limits_from_options, parse_size

    try:
        given: dict[str, Any] = {}
        if bot_cpus is not None:
            given["bot_cpus"] = bot_cpus
        if bot_memory is not None:
            given["bot_memory_bytes"] = parse_size(bot_memory)
        if bot_pids is not None:
            given["bot_pids"] = bot_pids
        if bot_runtime is not None:
            given["bot_runtime"] = bot_runtime
        if given and sandbox_kind != "docker":
            flags = ", ".join(FLAGS[key] for key in given)
            raise click.UsageError(f"container limits ({flags}) need --sandbox docker: here the bots run as "
                                   "processes, which have no container to limit")
        limits_from_options(given)
    except SandboxError as err:
        raise click.UsageError(f"bot container limits: {err}") from None
    return given

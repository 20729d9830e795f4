"""Which sandbox to use when the user did not say: Docker where it works here, else processes.

Docker is the right default for untrusted bots, but only where it can actually run them: an
engine must answer, this process must be root (each container gets a socket chowned to the
bot's uid), the bot base image for this checkout's SDK must exist (building it takes a minute
or two and is an explicit step: ``scripts/build-base-image``), and every bot needs a
``Dockerfile``. When any of that is missing, the default falls back to the process sandbox and
says why in one line, so that nobody is surprised that bots ran unboxed; an explicit
``--sandbox docker`` fails up front with the same words (and what to do), instead of starting
a tournament whose every match records a bot that could not start.

The first probe is a plain HTTP ``GET /_ping`` on the engine's Unix socket, so that a machine
without Docker does not pay for importing the Docker client (about 0.4 s); only an engine that
answers is then asked about the image, through the client the sandbox itself uses.
"""

from __future__ import annotations

import dataclasses
import os
import socket
from collections.abc import Sequence

from referee.sandbox.base import BotSpec, SandboxError, SandboxKind

DEFAULT_ENGINE = "unix:///var/run/docker.sock"
PROBE_TIMEOUT_S = 3.0


@dataclasses.dataclass(frozen=True)
class DockerProblem:
    """Why the Docker sandbox cannot run here: what is wrong, and what would fix it."""

    what: str
    remedy: str


def engine_address() -> str:
    """Where the Docker client looks for the engine: ``$DOCKER_HOST``, else the default socket."""
    return os.environ.get("DOCKER_HOST") or DEFAULT_ENGINE


def _ping_unix(path: str, timeout: float) -> str | None:
    """Why the engine on the Unix socket ``path`` did not answer ``/_ping``, or None if it did."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            reply = sock.recv(4096)
    except FileNotFoundError:
        return "no such socket"
    except OSError as error:
        return (error.strerror or type(error).__name__).lower()
    status = reply.split(b"\r\n", 1)[0]
    if not (status.startswith(b"HTTP/1.") and b" 200 " in status + b" "):
        return f"unexpected reply {status[:60]!r}"
    return None


def docker_problem(bots: Sequence[BotSpec] = (), timeout: float = PROBE_TIMEOUT_S) -> DockerProblem | None:
    """Why the Docker sandbox cannot run ``bots`` on this machine, or None when it can."""
    address = engine_address()
    if address.startswith("unix://"):
        why = _ping_unix(address.removeprefix("unix://"), timeout)
        if why is not None:
            return DockerProblem(f"no Docker engine answered at {address} ({why})",
                                 "start the Docker engine (or point DOCKER_HOST at one)")
    if os.geteuid() != 0:
        return DockerProblem("the docker sandbox needs root (each container gets a socket owned by the bot's uid)",
                             "run as root")
    missing = sorted(b.name for b in bots if not (b.directory / "Dockerfile").is_file())
    if missing:
        names = ", ".join(missing)
        return DockerProblem(f"the bots {names} have no Dockerfile" if len(missing) > 1 else
                             f"the bot {names} has no Dockerfile",
                             "add one ('talon bot new NAME' writes a bot with a Dockerfile to copy)")
    return _image_problem(address, timeout)


def _image_problem(address: str, timeout: float) -> DockerProblem | None:
    """Ask the engine, through the Docker client, whether the base image for this SDK exists."""
    import docker
    import docker.errors

    from referee.sandbox.image import current_base_tag

    try:
        tag = current_base_tag()
    except SandboxError as error:
        return DockerProblem(f"the bot base image cannot be named: {error}", "fix the SDK checkout")
    try:
        client = docker.from_env(timeout=max(1, round(timeout)))
        try:
            client.images.get(tag)
        finally:
            client.close()
    except docker.errors.ImageNotFound:
        return DockerProblem(f"the bot base image {tag} (for this SDK) is not built",
                             "build it with scripts/build-base-image (about a minute)")
    except docker.errors.DockerException as error:
        return DockerProblem(f"no Docker engine answered at {address} ({error})",
                             "start the Docker engine (or point DOCKER_HOST at one)")
    return None


def default_sandbox_kind(bots: Sequence[BotSpec] = ()) -> tuple[SandboxKind, str]:
    """The sandbox to use when none was asked for, and one line saying which and why.

    Docker when :func:`docker_problem` finds nothing wrong, else processes. ``bots`` (optional)
    are checked for a Dockerfile too."""
    problem = docker_problem(bots)
    if problem is None:
        return SandboxKind.DOCKER, (f"the Docker engine at {engine_address()} answered and the bot base image "
                                    "is built: bots run in containers (--sandbox docker)")
    return SandboxKind.PROCESS, f"{problem.what}: bots run as processes (--sandbox process)"


def require_docker(bots: Sequence[BotSpec] = (), asked_by: str = "--sandbox docker",
                   process_allowed: bool = True) -> None:
    """Raise :class:`SandboxError` saying what to do when the Docker sandbox cannot run ``bots``.

    ``asked_by`` names who wants Docker; ``process_allowed`` is false where processes are no
    way out (a stored tournament keeps the sandbox it started with)."""
    problem = docker_problem(bots)
    if problem is not None:
        way_out = ", or use --sandbox process" if process_allowed else ""
        raise SandboxError(f"{asked_by}: {problem.what}; {problem.remedy}{way_out}")

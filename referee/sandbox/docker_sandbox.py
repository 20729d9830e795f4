"""Run each bot in its own locked-down Docker container, reachable only through a Unix socket.

Per container the sandbox makes a private host directory ``<state_root>/<run>/<n>/``, asks
the referee service (:class:`~referee.sandbox.base.Listeners`) to listen on
``<dir>/referee.sock``, chowns that socket to the bot's uid with mode 0600 *before* the bot
starts (gRPC creates it root-owned and a non-root peer would get "permission denied"), and
mounts the directory read-only at ``/talon``. The container has no network at all
(``network_mode="none"``), so the socket is its only way out.

Two ways to run a bot:

* single match: ``SeatAccess(token=...)`` puts the token in ``TALON_TOKEN``;
* warm: ``SeatAccess()`` (no token) makes a token file in the private directory, mounted as
  ``TALON_TOKEN_FILE=/talon/token``. :meth:`DockerBotHandle.next_match` rewrites it for each
  match (atomically, by rename) and :meth:`DockerBotHandle.retire` writes ``exit``. A
  ``SeatAccess.token_file`` on the host, if given, supplies the first token.

``SeatAccess.address`` is not used: a container cannot reach the referee's own address.

Every container carries ``talon.managed=1``, ``talon.run=<run id>`` and ``talon.owner=<pid>:
<process start time>``; :meth:`DockerSandbox.sweep` removes containers and socket
directories whose owning process is gone (a crashed referee leaves nothing for long).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import docker
import docker.errors
from docker.models.containers import Container
from docker.types import Mount

from referee.sandbox.base import (
    BotHandle, BotSpec, Listeners, Sandbox, SandboxError, SandboxKind, SeatAccess,
)
from referee.sandbox.bot_image import ensure_bot_image
from referee.sandbox.docker_limits import DockerLimits, limits_from_options
from referee.sandbox.image import BaseImageRecipe, current_base_tag, ensure_base_image

LABEL_MANAGED = "talon.managed"
LABEL_RUN = "talon.run"
LABEL_OWNER = "talon.owner"
LABEL_BOT = "talon.bot"
MOUNT_POINT = "/talon"
SOCKET_NAME = "referee.sock"
TOKEN_NAME = "token"
EXIT_WORD = "exit"
SOCKET_PATH_MAX = 100
"""sun_path holds 107 bytes; the referee service refuses paths over 100."""
_RUN_ID_LEN = 12
_LOG_TAIL_LINES = 200
_LOG_MAX_CHARS = 64 * 1024


def _process_start(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (field 22 of /proc/pid/stat), or None if gone.

    Pid and start time together name a process even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def owner_label(pid: int | None = None) -> str:
    """``<pid>:<start time>`` of this (or the given) process."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}:{_process_start(pid)}"


def owner_is_alive(owner: str) -> bool:
    """Whether the process an ``owner_label`` names still runs."""
    pid, _, start = owner.partition(":")
    return pid.isdigit() and _process_start(int(pid)) == start


@dataclasses.dataclass(frozen=True)
class DockerSandboxConfig:
    """Where sockets live, which base image bots build on, and the container limits."""

    limits: DockerLimits = dataclasses.field(default_factory=DockerLimits)
    state_root: Path = Path("/run/talon")
    """Parent of the per-container socket directories: short (sun_path is 107 bytes) and
    private to this machine's referees."""
    base_image: str | None = None
    """Base image tag bots build on; ``None``: the one for this checkout's SDK
    (:func:`~referee.sandbox.image.current_base_tag`), so a changed SDK is never run stale."""
    build_base: bool = False
    """Build the base image when it is missing (about a minute; needs root). Off, a missing
    base image is an error that says how to build it."""
    build_missing: bool = True
    """Build a bot's image on first start when it does not exist yet."""

    def __post_init__(self) -> None:
        if not self.state_root.is_absolute():
            raise SandboxError(f"state_root {self.state_root} must be an absolute path")
        longest = len(str(self.state_root).encode()) + len(f"/{'x' * _RUN_ID_LEN}/999999/")
        if longest + len(SOCKET_NAME) > SOCKET_PATH_MAX:
            raise SandboxError(
                f"state_root {str(self.state_root)!r} is too long: socket paths under it would "
                f"exceed {SOCKET_PATH_MAX} bytes (a Unix socket's limit); use a short path such as "
                "/run/talon"
            )


@dataclasses.dataclass(frozen=True)
class ExitStatus:
    """How a container ended (or that it still runs)."""

    running: bool
    exit_code: int | None
    oom_killed: bool
    error: str = ""


class DockerBotHandle(BotHandle):
    """One running bot container and its private socket directory."""

    def __init__(
        self, sandbox: DockerSandbox, container: Container, directory: Path,
        warm: bool, started_at: float, uid: int,
    ) -> None:
        self._sandbox = sandbox
        self.uid = uid
        """The bot's own uid (its socket and token file belong to it)."""
        self.container = container
        self.directory = directory
        self.socket_path = directory / SOCKET_NAME
        self.warm = warm
        self.started_at = started_at
        """``time.monotonic()`` just before the container was created (start-to-ready)."""
        self._stopped = False
        pid = int(container.attrs.get("State", {}).get("Pid") or 0)
        start = _process_start(pid) if pid else None
        self._init = f"{pid}:{start}" if start is not None else None
        """The container's init process as seen from this host (``pid:start time``), so that
        :meth:`is_alive` is a /proc read, not an engine round trip (the match loop and the
        tournament pool ask it around every match). None if the engine's pids are not
        visible here (a remote engine): then the engine is asked."""

    @property
    def token_file(self) -> Path:
        """Host path of the warm bot's token file (the bot sees ``/talon/token``)."""
        return self.directory / TOKEN_NAME

    def status(self) -> ExitStatus:
        """Running, or the exit code and whether the kernel's OOM killer ended it."""
        try:
            self.container.reload()
        except docker.errors.NotFound:
            return ExitStatus(False, None, False, "container removed")
        state: Mapping[str, Any] = self.container.attrs["State"]
        return ExitStatus(
            bool(state.get("Running")), None if state.get("Running") else state.get("ExitCode"),
            bool(state.get("OOMKilled")), str(state.get("Error") or ""),
        )

    def is_alive(self) -> bool:
        if self._stopped:
            return False
        if self._init is not None:
            return owner_is_alive(self._init)
        return self.status().running

    async def wait_exit(self, timeout: float) -> ExitStatus:
        """Wait up to ``timeout`` seconds for the bot to end by itself."""
        deadline = time.monotonic() + timeout
        while True:
            status = await asyncio.to_thread(self.status)
            if not status.running or time.monotonic() >= deadline:
                return status
            await asyncio.sleep(0.1)

    def logs(self) -> str:
        try:
            raw = self.container.logs(tail=_LOG_TAIL_LINES)
        except docker.errors.NotFound:
            return ""
        text = raw.decode("utf-8", errors="replace")
        return text[-_LOG_MAX_CHARS:]

    def next_match(self, token: str) -> None:
        """Give a warm bot the seat token of its next match (or ``exit``)."""
        if not self.warm:
            raise SandboxError(
                "this bot was started for one match (SeatAccess.token); start it with "
                "SeatAccess() to reuse it through its token file"
            )
        if self._stopped:
            raise SandboxError("the bot's container was stopped; start a new one")
        if not token or "\n" in token:
            raise SandboxError("a seat token must be one non-empty line")
        self._sandbox.write_token(self.directory, token, self.uid)

    def retire(self) -> None:
        """Tell a warm bot to stop after its current match (it should then exit by itself)."""
        self.next_match(EXIT_WORD)

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        await self._sandbox.release(self)


class DockerSandbox(Sandbox):
    """Starts bots in containers; owns them until :meth:`close`."""

    kind = SandboxKind.DOCKER

    def __init__(
        self, listeners: Listeners, config: DockerSandboxConfig | None = None,
        client: docker.DockerClient | None = None,
    ) -> None:
        self.config = config or DockerSandboxConfig()
        self.listeners = listeners
        self._client = client
        self.run_id = secrets.token_hex(_RUN_ID_LEN // 2)
        self.owner = owner_label()
        self.run_dir = self.config.state_root / self.run_id
        self._seq = itertools.count(1)
        self._uid_offset = secrets.randbelow(self.config.limits.uid_span)
        """Where this sandbox's containers start in the uid range, so that two sandboxes on one
        host (two tournaments) rarely give two live bots the same uid."""
        self._handles: dict[str, DockerBotHandle] = {}
        self._swept = False
        self._base_tag: str | None = None
        self._setup_lock = asyncio.Lock()
        """Seats of one match start concurrently; the run directory is made once."""
        self._images: dict[tuple[str, Path], str] = {}
        self._image_locks: dict[tuple[str, Path], asyncio.Lock] = {}
        self._image_errors: dict[tuple[str, Path], SandboxError] = {}
        """One image lookup (or build) per bot for the sandbox's life, its tag or its error: a
        tournament starts several instances of a bot at once, which must not build its image
        twice, and a lookup costs a directory digest and two engine round trips per start."""

    @classmethod
    def with_limits(cls, listeners: Listeners, options: Mapping[str, Any]) -> DockerSandbox:
        """A sandbox whose containers get the limits a run's options ask for (the ``bot_*``
        entries of :data:`~referee.sandbox.docker_limits.LIMIT_OPTIONS`), defaults otherwise.

        :raises SandboxError: for a value the limits refuse."""
        return cls(listeners, DockerSandboxConfig(limits=limits_from_options(options)))

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            try:
                self._client = docker.from_env()
                self._client.ping()
            except docker.errors.DockerException as error:
                raise SandboxError(f"cannot reach the Docker engine: {error}") from None
        return self._client

    def labels(self, bot: BotSpec) -> dict[str, str]:
        return {LABEL_MANAGED: "1", LABEL_RUN: self.run_id, LABEL_OWNER: self.owner,
                LABEL_BOT: bot.name}

    def sweep(self) -> list[str]:
        """Remove containers and socket directories left by Talon runs whose process died.

        Returns the names of what was removed. Runs of live processes are left alone, so
        two referees on one engine do not clean each other up."""
        removed = []
        for container in self.client.containers.list(
            all=True, filters={"label": f"{LABEL_MANAGED}=1"}
        ):
            owner = container.labels.get(LABEL_OWNER, "")
            if container.labels.get(LABEL_RUN) != self.run_id and not owner_is_alive(owner):
                try:
                    container.remove(force=True)
                    removed.append(f"container {container.name}")
                except docker.errors.NotFound:
                    pass
        root = self.config.state_root
        for run_dir in root.iterdir() if root.is_dir() else []:
            if not run_dir.is_dir() or run_dir.is_symlink():
                continue
            owner_file = run_dir / "owner"
            owner = owner_file.read_text().strip() if owner_file.is_file() else ""
            if run_dir != self.run_dir and not owner_is_alive(owner):
                shutil.rmtree(run_dir, ignore_errors=True)
                removed.append(f"directory {run_dir}")
        self._swept = True
        return removed

    def _prepare_run_dir(self) -> None:
        if not self._swept:
            self.sweep()
        if not self.run_dir.is_dir():
            self.config.state_root.mkdir(mode=0o755, parents=True, exist_ok=True)
            self.run_dir.mkdir(mode=0o755)
            (self.run_dir / "owner").write_text(self.owner + "\n")

    def write_token(self, directory: Path, token: str, uid: int) -> None:
        """Replace the token file by rename, readable only by the bot's ``uid``."""
        temporary = directory / f".{TOKEN_NAME}.{secrets.token_hex(4)}"
        temporary.write_text(token + "\n")
        os.chown(temporary, uid, uid)
        os.chmod(temporary, 0o400)
        os.replace(temporary, directory / TOKEN_NAME)

    def base_tag(self) -> str:
        """The base image bots build on; built first if missing and ``build_base`` is on."""
        if self._base_tag is None:
            tag = self.config.base_image or current_base_tag()
            try:
                self.client.images.get(tag)
            except docker.errors.ImageNotFound:
                if not self.config.build_base:
                    raise SandboxError(
                        f"the bot base image {tag} (for this SDK) is missing: build it with "
                        "scripts/build-base-image"
                    ) from None
                tag = ensure_base_image(self.client, BaseImageRecipe.from_host()).tag
            self._base_tag = tag
        return self._base_tag

    def image_for(self, bot: BotSpec) -> str:
        """The tag of the bot's image, built now if missing and allowed."""
        if not self.config.build_missing:
            raise SandboxError(f"bot {bot.name!r} has no image and build_missing is off")
        return ensure_bot_image(self.client, bot, self.base_tag()).tag

    def _environment(self, access: SeatAccess, warm: bool) -> dict[str, str]:
        env = {"TALON_ADDRESS": f"unix://{MOUNT_POINT}/{SOCKET_NAME}"}
        if warm:
            env["TALON_TOKEN_FILE"] = f"{MOUNT_POINT}/{TOKEN_NAME}"
        else:
            env["TALON_TOKEN"] = str(access.token)
        return env

    def _create(self, image: str, bot: BotSpec, directory: Path, env: dict[str, str],
                seq: int, uid: int) -> Container:
        name = re.sub(r"[^a-zA-Z0-9_.-]+", "-", f"talon-{self.run_id}-{seq}-{bot.name}")[:120]
        mount = Mount(target=MOUNT_POINT, source=str(directory), type="bind", read_only=True)
        try:
            container = self.client.containers.create(
                image, name=name, environment=env, labels=self.labels(bot), mounts=[mount],
                **self.config.limits.create_kwargs(uid),
            )
        except docker.errors.ImageNotFound:
            raise SandboxError(f"image {image!r} of bot {bot.name!r} does not exist") from None
        except docker.errors.APIError as error:
            raise SandboxError(
                f"the Docker engine refused the container of bot {bot.name!r}: "
                f"{error.explanation}"
            ) from None
        try:
            container.start()
            container.reload()  # State.Pid, for is_alive()
        except docker.errors.APIError as error:
            container.remove(force=True)
            raise SandboxError(
                f"the container of bot {bot.name!r} would not start: {error.explanation}"
            ) from None
        return container

    async def _ensure_run_dir(self) -> None:
        """Sweep once and make the run directory, off the event loop; once for concurrent callers."""
        async with self._setup_lock:
            await asyncio.to_thread(self._prepare_run_dir)

    async def prepare(self, bots: Iterable[BotSpec]) -> dict[str, SandboxError]:
        """Reach the engine, sweep, and find (or build) every bot's image, one bot at a time.

        :raises SandboxError: when the engine does not answer (no bot could start)."""
        await self._ensure_run_dir()
        errors: dict[str, SandboxError] = {}
        for bot in bots:
            try:
                await self._image(bot)
            except SandboxError as err:
                errors[bot.name] = err
        return errors

    async def _image(self, bot: BotSpec) -> str:
        """The bot's image tag, looked up (built if missing) once per sandbox.

        A bot whose image cannot be had keeps its error: each later start raises it at once
        instead of trying the build again (a tournament would otherwise rebuild a broken bot
        for every match it has)."""
        key = (bot.name, bot.directory)
        async with self._image_locks.setdefault(key, asyncio.Lock()):
            if key in self._image_errors:
                raise SandboxError(str(self._image_errors[key]))
            if key not in self._images:
                try:
                    self._images[key] = await asyncio.to_thread(self.image_for, bot)
                except SandboxError as err:
                    self._image_errors[key] = err
                    raise
        return self._images[key]

    async def start(self, bot: BotSpec, access: SeatAccess) -> DockerBotHandle:
        """Start ``bot`` in a fresh container; see the module doc for single vs warm.

        The bot's image is looked up (built if missing) on its first start only, or by
        :meth:`prepare` before."""
        return await self.start_image(await self._image(bot), bot, access)

    async def start_image(self, image: str, bot: BotSpec, access: SeatAccess) -> DockerBotHandle:
        """Start a container of an already built ``image`` for ``bot``."""
        await self._ensure_run_dir()
        seq = next(self._seq)
        uid = self.config.limits.uid_for(self._uid_offset + seq)
        directory = self.run_dir / str(seq)
        directory.mkdir(mode=0o755)
        warm = access.token is None
        added = False
        try:
            socket_path = directory / SOCKET_NAME
            await self.listeners.add_unix_listener(socket_path)
            added = True
            os.chown(socket_path, uid, uid)
            os.chmod(socket_path, 0o600)
            if warm:
                first = access.token_file.read_text().strip() if access.token_file else ""
                self.write_token(directory, first, uid)
            started_at = time.monotonic()
            creating = asyncio.ensure_future(asyncio.to_thread(
                self._create, image, bot, directory, self._environment(access, warm), seq, uid
            ))
            try:
                container = await asyncio.shield(creating)
            except asyncio.CancelledError:
                await self._discard(creating)
                raise
        except BaseException:
            if added:
                await self.listeners.remove_unix_listener(directory / SOCKET_NAME)
            shutil.rmtree(directory, ignore_errors=True)
            raise
        handle = DockerBotHandle(self, container, directory, warm, started_at, uid)
        self._handles[str(container.id)] = handle
        return handle

    @staticmethod
    async def _discard(creating: asyncio.Future[Container]) -> None:
        """Remove the container of a start that was cancelled (Ctrl-C) while the engine was
        creating it: the engine call runs on in its thread, and its container would be left
        running, unknown to :meth:`close`, until another run's sweep."""
        try:
            container = await creating
        except Exception:  # noqa: BLE001 - a failed create left nothing behind
            return
        try:
            await asyncio.to_thread(container.remove, force=True)
        except docker.errors.DockerException:
            pass

    async def release(self, handle: DockerBotHandle) -> None:
        """Kill and remove the container, stop listening, delete the socket directory."""
        try:
            await asyncio.to_thread(handle.container.remove, force=True)
        except docker.errors.NotFound:
            pass
        finally:
            self._handles.pop(str(handle.container.id), None)
            try:
                await self.listeners.remove_unix_listener(handle.socket_path)
            finally:
                shutil.rmtree(handle.directory, ignore_errors=True)

    async def close(self) -> None:
        for handle in list(self._handles.values()):
            await handle.stop()
        shutil.rmtree(self.run_dir, ignore_errors=True)

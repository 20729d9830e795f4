"""The referee service: one asyncio gRPC server that hosts many matches at once.

* Bots reach it on a Unix socket and/or TCP (``BotSession``), plus any extra Unix sockets a
  sandbox asks for (:meth:`RefereeService.add_unix_listener`, the
  :class:`referee.sandbox.base.Listeners` seam): every bot listener serves every match, and a
  token picks the seat.
* Tools reach the control API (``MatchControl``, :mod:`referee.server_control`) on a separate
  listener, so a bot can never start or watch matches through its own socket.
* Both carry the standard gRPC health service.

A token works for one seat of one match, once: a second connection with it is refused with
ALREADY_EXISTS, a token of a finished match with FAILED_PRECONDITION, anything else with
UNAUTHENTICATED. Messages over ``max_message_bytes`` are refused by gRPC with
RESOURCE_EXHAUSTED. :meth:`RefereeService.stop` refuses new matches, lets running ones finish
within a grace period, then ends the rest cleanly (streams closed with ABORTED, bots
stopped) before the listeners go.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]

from referee.match_seat import LinkState, SeatLink
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb

LOGGER = logging.getLogger(__name__)
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024
_SPENT_TOKENS_KEPT = 100_000
_RESULTS_KEPT = 10_000
_STREAMS_PER_CONNECTION = 64
"""Streams at once on one connection (gRPC's own default is unlimited)."""
_PRIVATE_CONNECTIONS = 4
"""Connections at once on a sandboxed bot's own socket: the SDK needs one (a warm bot keeps it
across matches); the rest leave room for a reconnect."""
_PRIVATE_STREAMS = 4
_PRIVATE_CALLS = 8
"""Calls at once on a sandboxed bot's own socket (a seat is one call); more get RESOURCE_EXHAUSTED."""


@dataclasses.dataclass(frozen=True)
class ServiceConfig:
    """Where the service listens and what it accepts."""

    bot_unix: Path | None = None
    """Unix socket for bots (keep the path under 107 bytes)."""
    bot_tcp: str | None = None
    """``host:port`` for bots; port 0 picks a free port."""
    control_unix: Path | None = None
    control_tcp: str | None = None
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    """Largest message accepted from a bot or a tool."""
    hello_timeout_s: float = 10.0
    """How long a new stream may take to send its Hello."""

    def __post_init__(self) -> None:
        if self.bot_unix is None and self.bot_tcp is None:
            raise ValueError("the service needs a bot listener: set bot_unix and/or bot_tcp")
        if not 1024 <= self.max_message_bytes <= 64 * 1024 * 1024:
            raise ValueError(f"max_message_bytes: {self.max_message_bytes!r} is not allowed; "
                             "allowed: 1024 to 67108864")


class _Entry:
    """A match as the service sees it: its seats' links and its public record's watchers."""

    def __init__(self, match_id: str, links: list[SeatLink], names: Sequence[str]) -> None:
        self.match_id = match_id
        self.links = links
        self.names = list(names)
        self.task: asyncio.Task[Any] | None = asyncio.current_task()
        self.events: Sequence[gpb.Event] = []
        self.result: bpb.MatchResult | None = None
        self.watchers = 0
        self.changed = asyncio.Event()
        self.source: Callable[[], Sequence[gpb.Event]] = lambda: ()

    def attach_source(self, source: Callable[[], Sequence[gpb.Event]]) -> None:
        """How watchers read the match's public events encoded so far."""
        self.source = source

    def has_watchers(self) -> bool:
        return self.watchers > 0

    def publish(self, events: Sequence[gpb.Event]) -> None:
        self.events = events
        self.changed.set()
        self.changed = asyncio.Event()

    def finish(self, result: bpb.MatchResult) -> None:
        self.result = result
        self.changed.set()


class RefereeService:
    """The gRPC referee (see the module docstring). Use ``async with`` or start()/stop()."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self._tokens: dict[str, SeatLink] = {}
        self._spent: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._matches: dict[str, _Entry] = {}
        self.results: collections.OrderedDict[str, bpb.MatchResult] = collections.OrderedDict()
        self._servers: list[grpc.aio.Server] = []
        self._extra: dict[Path, grpc.aio.Server] = {}
        self._bot_target = ""
        self._bot_tcp_target = ""
        self.control_target = ""
        self.accepting = True
        self.control_tasks: set[asyncio.Task[Any]] = set()
        self._health = health.aio.HealthServicer()
        self._bot_handlers = grpc.method_handlers_generic_handler("talon.v1.BotSession", {
            "Play": grpc.stream_stream_rpc_method_handler(
                self._play, request_deserializer=bpb.BotMessage.FromString,
                response_serializer=bpb.RefereeMessage.SerializeToString),
        })

    # --- lifecycle ----------------------------------------------------------------------------

    async def __aenter__(self) -> RefereeService:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _options(self, streams: int = _STREAMS_PER_CONNECTION) -> list[tuple[str, Any]]:
        size = self.config.max_message_bytes
        return [("grpc.max_receive_message_length", size), ("grpc.max_send_message_length", 16 * 1024 * 1024),
                ("grpc.so_reuseport", 0), ("grpc.max_concurrent_streams", streams)]

    def _new_server(self, control: bool = False, private: bool = False) -> grpc.aio.Server:
        """A gRPC server for the control API, for bots, or (``private``) for one sandboxed bot.

        A private socket serves one container, whose bot is untrusted: it gets a few
        connections, a few streams on each, a few calls in all, and no health service, so that
        a bot opening thousands of connections or streams cannot exhaust the referee's file
        descriptors or memory (measured before these caps: 4,000 connections from one bot ran a
        referee with 2,048 descriptors out of them and ended every match it was running)."""
        if private:
            options = [*self._options(_PRIVATE_STREAMS), ("grpc.max_allowed_incoming_connections", _PRIVATE_CONNECTIONS)]
            server = grpc.aio.server(options=options, maximum_concurrent_rpcs=_PRIVATE_CALLS)
            server.add_generic_rpc_handlers((self._bot_handlers,))
            return server
        server = grpc.aio.server(options=self._options())
        if control:
            from referee.server_control import control_handlers

            server.add_generic_rpc_handlers((control_handlers(self),))
        else:
            server.add_generic_rpc_handlers((self._bot_handlers,))
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        return server

    async def start(self) -> None:
        """Bind the listeners and start serving; :raises OSError: naming an address that fails."""
        cfg = self.config
        bots = self._new_server()
        targets: list[str] = []
        if cfg.bot_unix is not None:
            targets.append(_bind_unix(bots, cfg.bot_unix))
        if cfg.bot_tcp is not None:
            self._bot_tcp_target = _bind_tcp(bots, cfg.bot_tcp)
            targets.append(self._bot_tcp_target)
        await bots.start()
        self._servers.append(bots)
        self._bot_target = targets[0]
        if cfg.control_unix is not None or cfg.control_tcp is not None:
            control = self._new_server(control=True)
            controls: list[str] = []
            if cfg.control_unix is not None:
                controls.append(_bind_unix(control, cfg.control_unix))
            if cfg.control_tcp is not None:
                controls.append(_bind_tcp(control, cfg.control_tcp))
            await control.start()
            self._servers.append(control)
            self.control_target = controls[0]
        for name in ("", "talon.v1.BotSession", "talon.v1.MatchControl"):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        LOGGER.info("referee serving bots on %s%s", ", ".join(targets),
                    f", control on {self.control_target}" if self.control_target else "")

    async def stop(self, grace_s: float = 5.0) -> None:
        """Refuse new matches, let running ones end within ``grace_s``, end the rest, close."""
        self.accepting = False
        await self._health.enter_graceful_shutdown()
        running = [e.task for e in self._matches.values() if e.task is not None and not e.task.done()]
        if running:
            _, pending = await asyncio.wait(running, timeout=grace_s)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=5.0)
        for link in self._tokens.values():
            link.finish(grpc.StatusCode.ABORTED, "the referee is shutting down")
        for path in list(self._extra):
            await self.remove_unix_listener(path)
        for server in self._servers:
            await server.stop(1.0)
        self._servers.clear()
        for socket_path in (self.config.bot_unix, self.config.control_unix):
            if socket_path is not None and socket_path.exists():
                socket_path.unlink()

    # --- the Listeners seam -------------------------------------------------------------------

    @property
    def bot_target(self) -> str:
        """The gRPC target bots connect to (the Unix socket if there is one, else TCP)."""
        return self._bot_target

    @property
    def bot_tcp_target(self) -> str:
        """The TCP ``host:port`` bots may connect to ("" without a TCP listener)."""
        return self._bot_tcp_target

    async def add_unix_listener(self, path: Path) -> str:
        """Serve bots also on the Unix socket ``path``; return its target."""
        if path in self._extra:
            raise ValueError(f"already listening on {str(path)!r}")
        server = self._new_server(private=True)
        target = _bind_unix(server, path)
        await server.start()
        self._extra[path] = server
        return target

    async def remove_unix_listener(self, path: Path) -> None:
        """Stop serving on ``path`` and remove the socket file."""
        server = self._extra.pop(path, None)
        if server is not None:
            await server.stop(0.5)
        if path.exists():
            path.unlink()

    # --- matches ------------------------------------------------------------------------------

    def open_match(self, match_id: str, names: Sequence[str], max_violations: int) -> _Entry:
        """Register a match: one link and one fresh token per seat."""
        if not self.accepting:
            raise RuntimeError("the referee is shutting down and accepts no new match")
        if match_id in self._matches:
            raise ValueError(f"match id {match_id!r} is already running")
        links = [SeatLink(match_id, seat, secrets.token_urlsafe(24), max_violations) for seat in range(len(names))]
        for link in links:
            self._tokens[link.token] = link
        entry = _Entry(match_id, links, names)
        self._matches[match_id] = entry
        return entry

    def close_match(self, match_id: str) -> None:
        """Forget a finished match's tokens (they become 'spent') and keep its result."""
        entry = self._matches.pop(match_id, None)
        if entry is None:
            return
        for link in entry.links:
            self._tokens.pop(link.token, None)
            self._spent[link.token] = None
        while len(self._spent) > _SPENT_TOKENS_KEPT:
            self._spent.popitem(last=False)
        if entry.result is not None:
            self.results[match_id] = entry.result
            while len(self.results) > _RESULTS_KEPT:
                self.results.popitem(last=False)
        entry.changed.set()

    def entry(self, match_id: str) -> _Entry | None:
        return self._matches.get(match_id)

    @property
    def running_matches(self) -> int:
        return len(self._matches)

    @property
    def match_ids(self) -> list[str]:
        """The ids of the matches running now."""
        return list(self._matches)

    # --- BotSession.Play ----------------------------------------------------------------------

    async def _play(self, request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        link = await self._authenticate(context)
        if link.welcome is not None:
            try:
                await context.write(link.welcome)
            except Exception:  # noqa: BLE001 - the bot left before its Welcome
                link.lost("the stream broke before the Welcome")
                return
        if link.state is not LinkState.CLAIMED:  # the match ended, or the seat was taken over, meanwhile
            if link.abort_code is not None:
                await context.abort(link.abort_code, link.abort_details)
            return
        link.attach(context)
        reader = asyncio.ensure_future(_read(link, context, self.config.max_message_bytes))
        try:
            await link.finished.wait()
        finally:
            reader.cancel()
            link.lost("the stream ended before the match did: the bot exited or closed it, or gRPC refused "
                      f"a message over the {self.config.max_message_bytes}-byte limit")
        if link.abort_code is not None:
            await context.abort(link.abort_code, link.abort_details)
        if link.lost_at >= 0:  # ended by the bot's side (it closed its half, or broke the stream)
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                f"{link.close_reason}; the fallback player takes your seat")

    async def _authenticate(self, context: grpc.aio.ServicerContext[Any, Any]) -> SeatLink:
        try:
            first = await asyncio.wait_for(context.read(), self.config.hello_timeout_s)
        except asyncio.TimeoutError:
            await _refuse(context, grpc.StatusCode.DEADLINE_EXCEEDED,
                          f"no Hello within {self.config.hello_timeout_s:g} s: send Hello(token=...) first")
        if first is grpc.aio.EOF or not isinstance(first, bpb.BotMessage) or first.WhichOneof("message") != "hello":
            await _refuse(context, grpc.StatusCode.INVALID_ARGUMENT,
                          "the first message must be a Hello carrying the seat's token")
        token = first.hello.token
        link = self._tokens.get(token)
        if link is None:
            if token in self._spent:
                await _refuse(context, grpc.StatusCode.FAILED_PRECONDITION,
                              "this token's match is over: a token works for one match only")
            await _refuse(context, grpc.StatusCode.UNAUTHENTICATED,
                          "unknown token: use the token given for your seat (TALON_TOKEN)")
        if link.state is LinkState.CLOSED:
            await _refuse(context, grpc.StatusCode.FAILED_PRECONDITION,
                          f"seat {link.seat} of match {link.match_id} is closed (its stream ended or the "
                          "fallback player took it over): a token serves one connection of one seat")
        if link.state is not LinkState.WAITING:
            await _refuse(context, grpc.StatusCode.ALREADY_EXISTS,
                          f"seat {link.seat} of match {link.match_id} is already connected: a token "
                          "serves one connection of one seat")
        link.claim()
        LOGGER.debug("match %s seat %d: %s connected", link.match_id, link.seat, first.hello.bot_name or "a bot")
        return link


async def _refuse(context: grpc.aio.ServicerContext[Any, Any], code: grpc.StatusCode, words: str) -> NoReturn:
    """End the stream with ``code`` and ``words`` (``abort`` raises; so does this)."""
    await context.abort(code, words)
    raise RuntimeError("unreachable: context.abort returned")


async def _read(link: SeatLink, context: grpc.aio.ServicerContext[Any, Any], limit: int) -> None:
    """The one reader of a stream: every message goes to the link until EOF or a flood."""
    try:
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                # A message over the size limit also ends here: gRPC refuses it (the bot gets
                # RESOURCE_EXHAUSTED) and the server sees only the end of the stream.
                link.lost("the stream ended before the match did: the bot closed it, or gRPC refused a "
                          f"message over the {limit}-byte limit")
                return
            if not link.receive(message):
                return
    except asyncio.CancelledError:
        raise
    except DecodeError as err:
        link.lost(f"protocol: a message from the bot is not a BotMessage ({err})", protocol_error=True)
    except Exception as err:  # noqa: BLE001 - a broken stream, whatever the cause
        link.lost(f"the stream broke: {type(err).__name__}: {err}")


def _bind_unix(server: grpc.aio.Server, path: Path) -> str:
    path = Path(os.path.abspath(path))
    if len(str(path)) > 100:
        raise OSError(f"Unix socket path {str(path)!r} is too long ({len(str(path))} bytes; at most 100)")
    target = f"unix://{path}"
    if server.add_insecure_port(target) == 0:
        raise OSError(f"cannot listen on {target}")
    return target


def _bind_tcp(server: grpc.aio.Server, address: str) -> str:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise OSError(f"TCP address {address!r} is not host:port (e.g. 127.0.0.1:0)")
    bound = server.add_insecure_port(address)
    if bound == 0:
        raise OSError(f"cannot listen on {address}")
    return f"{host}:{bound}"

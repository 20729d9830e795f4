"""A stand-in for the referee's listeners that only notes who connects, and when.

``talon bot build`` uses it to prove a freshly built bot starts and reaches its socket
(without a referee, and with no network), and the start-up benchmark uses it to time
container creation until the bot's first connection. It listens on real Unix sockets, so
the container, the mount, and the socket's owner and mode are exercised exactly as in a
match; it just speaks no gRPC.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

GRPC_PREFACE = b"PRI * HTTP/2.0"


@dataclasses.dataclass
class Connection:
    """The first connection seen on one socket."""

    at: float
    """``time.monotonic()`` when it was accepted."""
    first_bytes: bytes = b""

    @property
    def speaks_http2(self) -> bool:
        """Whether the peer opened with HTTP/2's preface, as a gRPC client does."""
        return self.first_bytes.startswith(GRPC_PREFACE)


class ProbeListeners:
    """Implements :class:`~referee.sandbox.base.Listeners` with plain asyncio servers."""

    def __init__(self) -> None:
        self._servers: dict[Path, asyncio.AbstractServer] = {}
        self._connected: dict[Path, asyncio.Future[Connection]] = {}

    async def add_unix_listener(self, path: Path) -> str:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Connection] = loop.create_future()

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connection = Connection(time.monotonic())
            try:
                connection.first_bytes = await asyncio.wait_for(reader.read(64), 5.0)
            except (TimeoutError, ConnectionError):
                pass
            if not future.done():
                future.set_result(connection)
            writer.close()

        self._servers[path] = await asyncio.start_unix_server(accept, path=str(path))
        self._connected[path] = future
        return f"unix://{path}"

    async def remove_unix_listener(self, path: Path) -> None:
        server = self._servers.pop(path, None)
        self._connected.pop(path, None)
        if server is not None:
            server.close()
            await server.wait_closed()
        path.unlink(missing_ok=True)

    async def wait_connected(self, path: Path, timeout: float) -> Connection | None:
        """The first connection on ``path``, or None if none came within ``timeout`` s."""
        future = self._connected[path]
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return None

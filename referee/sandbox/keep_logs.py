"""A sandbox that keeps what each bot printed, for ``talon play --bot-logs``.

Why a wrapper: the match loop stops its bots itself, and a stopped container's output is gone,
so the output is taken at the moment of the stop, whatever sandbox runs the bots.
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.sandbox.base import BotHandle, BotSpec, Sandbox, SandboxError, SeatAccess


class KeepLogs(Sandbox):
    """Runs bots in ``inner``; ``kept`` gets ``(bot name, output)`` for each bot as it stops, in
    the order they stop (the output is bounded as :meth:`BotHandle.logs` bounds it)."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.kept: list[tuple[str, str]] = []

    async def start(self, bot: BotSpec, access: SeatAccess) -> BotHandle:
        return _Kept(await self.inner.start(bot, access), bot.name, self.kept)

    async def prepare(self, bots: Iterable[BotSpec]) -> dict[str, SandboxError]:
        return await self.inner.prepare(bots)

    async def close(self) -> None:
        await self.inner.close()


class _Kept(BotHandle):
    def __init__(self, inner: BotHandle, name: str, sink: list[tuple[str, str]]) -> None:
        self.inner = inner
        self.name = name
        self.sink = sink
        self.taken = False

    def is_alive(self) -> bool:
        return self.inner.is_alive()

    def logs(self) -> str:
        return self.inner.logs()

    async def stop(self) -> None:
        if not self.taken:
            self.taken = True
            try:
                text = self.inner.logs()
            except Exception as err:  # noqa: BLE001 - the bot must be stopped whatever its logs do
                text = f"(its output could not be read: {err})"
            self.sink.append((self.name, text))
        await self.inner.stop()

"""SIGTERM handled like Ctrl-C by the commands that run matches.

Why: SIGTERM is what ``timeout``, systemd and CI cancellation send. Python's default is to die
at once, which left a tournament's bot containers running and printed no resume command. Under
:func:`stoppable` it cancels the command's main task, the same path asyncio gives Ctrl-C: the
running matches end, every bot is stopped and what was played is kept.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def stoppable(work: Awaitable[T]) -> T:
    """Await ``work``; SIGTERM cancels it (``asyncio.run`` then raises CancelledError)."""
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None:
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await work
    finally:
        loop.remove_signal_handler(signal.SIGTERM)

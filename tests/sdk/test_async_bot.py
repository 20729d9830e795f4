"""The SDK's async variant: a bot with ``async def decide`` plays whole matches through a real
referee (``talon play``: real socket, real bot processes), for both games."""

from __future__ import annotations

from pathlib import Path

import pytest
from sdk_play_support import play_against_greedy

ASYNC_BOT = '''\
import asyncio

from talon_sdk import AsyncBot, run


class Patient(AsyncBot):
    """Thinks in an executor, with asyncio as its own clock."""

    async def decide(self, view):
        loop = asyncio.get_running_loop()
        return await asyncio.wait_for(loop.run_in_executor(None, min, view.legal_actions), 0.5)


if __name__ == "__main__":
    run(Patient)
'''


@pytest.mark.parametrize("game,rules", [("crazy-eights", "house"), ("crazy-rummy", "standard")])
def test_an_async_bot_plays_a_whole_match(tmp_path: Path, game: str, rules: str) -> None:
    bot = tmp_path / "patient"
    bot.mkdir()
    (bot / "bot.py").write_text(ASYNC_BOT)
    play_against_greedy(bot, game, rules, 11)

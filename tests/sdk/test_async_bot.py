"""The SDK's async variant: a bot with ``async def decide`` plays whole matches through a real
referee (``talon play``: real socket, real bot processes), for both games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

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
    others = ["--bot", str(ROOT / "sample_bots" / "greedy")] * (2 if game == "crazy-rummy" else 1)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "talon"), "play", "--game", game, "--rules", rules,
         "--bot", str(bot), *others, "--seed", "11", "--sandbox", "process", "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    mine = result["seats"][0]
    assert mine["name"] == "patient" and mine["decisions"] > 0
    assert result["failures"] == [] and not mine["taken_over"]

"""The SDK README's example bot is complete: this test runs exactly that code in a real match."""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path

from referee.match import BotSeat, run_match
from referee.match_types import MatchConfig
from referee.sandbox.base import BotSpec
from referee.sandbox.process import ProcessSandbox
from referee.server import RefereeService, ServiceConfig

REPO = Path(__file__).resolve().parents[2]


def readme_bot() -> str:
    text = (REPO / "sdk" / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the SDK README has no python block"
    return blocks[0]


def test_the_readme_bot_is_about_twenty_lines():
    code = [line for line in readme_bot().splitlines() if line.strip()]
    assert len(code) <= 22, len(code)


def test_the_readme_bot_plays_a_full_match_without_a_failure(tmp_path):
    bot_dir = tmp_path / "shedder"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_text(readme_bot())

    async def play():
        with tempfile.TemporaryDirectory(prefix="tl-") as tmp:
            async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
                sandbox = ProcessSandbox()
                try:
                    results = []
                    for seed, preset in enumerate(["classic", "house", "specials"]):
                        seats = [BotSeat(BotSpec.from_dir(bot_dir)), BotSeat(BotSpec.from_dir(REPO / "sample_bots" / "random"))]
                        results.append(await run_match(MatchConfig("crazy-eights", preset, seed), seats,
                                                       service=service, sandbox=sandbox))
                    return results
                finally:
                    await sandbox.close()

    for result in asyncio.run(play()):
        assert not result.failures, result.failures
        assert result.seats[0].name == "shedder" and result.seats[0].decisions > 0

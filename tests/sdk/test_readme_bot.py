"""The bot shown in README.md is a complete bot: this test plays that exact text.

It is cut from the README, written to a bot directory and played through `talon play`: a real
referee on a real socket, real bot processes, for both games.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sdk_play_support import play_against_greedy

ROOT = Path(__file__).resolve().parents[2]


def readme_bot() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "README.md shows no Python bot"
    return match.group(1)


def test_the_readme_bot_is_about_twenty_lines() -> None:
    code = [line for line in readme_bot().splitlines() if line.strip()]
    assert len(code) <= 25


@pytest.mark.parametrize("game,rules,seed", [("crazy-eights", "house", 7), ("crazy-eights", "classic", 8),
                                             ("crazy-rummy", "standard", 9)])
def test_the_readme_bot_plays_a_whole_match(tmp_path: Path, game: str, rules: str, seed: int) -> None:
    bot = tmp_path / "readme_bot"
    bot.mkdir()
    (bot / "bot.py").write_text(readme_bot())
    play_against_greedy(bot, game, rules, seed)

"""The bot shown in README.md is a complete bot: this test plays that exact text.

It is cut from the README, written to a bot directory and played through `talon play`: a real
referee on a real socket, real bot processes, for both games.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    others = ["--bot", str(ROOT / "sample_bots" / "greedy")] * (2 if game == "crazy-rummy" else 1)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "talon"), "play", "--game", game, "--rules", rules,
         "--bot", str(bot), *others, "--seed", str(seed), "--sandbox", "process", "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    mine = result["seats"][0]
    assert mine["name"] == "readme_bot" and mine["decisions"] > 0
    assert result["failures"] == [] and not mine["taken_over"]

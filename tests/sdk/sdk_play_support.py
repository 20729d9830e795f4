"""Playing a bot directory through ``talon play`` (real referee, real processes) in SDK tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def play_against_greedy(bot: Path, game: str, rules: str, seed: int) -> dict[str, Any]:
    """One match of ``bot`` (seat 0) against greedy (one seat; two in Crazy Rummy), by the
    process sandbox; the result's JSON, after checking the run and the bot's seat went cleanly."""
    others = ["--bot", str(ROOT / "sample_bots" / "greedy")] * (2 if game == "crazy-rummy" else 1)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "talon"), "play", "--game", game, "--rules", rules,
         "--bot", str(bot), *others, "--seed", str(seed), "--sandbox", "process", "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    mine = result["seats"][0]
    assert mine["name"] == bot.name and mine["decisions"] > 0
    assert result["failures"] == [] and not mine["taken_over"]
    return result

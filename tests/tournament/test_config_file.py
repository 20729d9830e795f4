"""`talon tournament --config FILE`: a whole tournament in one TOML file, run for real."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"

CONFIG = """\
game = "crazy-eights"
rules = "pagat"
table-size = 2
bots = ["bots/random", "bots/greedy"]   # relative to this file's folder
deal_groups = 1
seed = 5
db = "out/t.sqlite"
sandbox = "process"
json = true

[set]
match_target = 50
draw_mode = "up_to_n"
"""


def _setup(tmp_path: Path, text: str = CONFIG) -> Path:
    for bot in ("random", "greedy"):
        shutil.copytree(SAMPLES / bot, tmp_path / "bots" / bot)
    config = tmp_path / "t.toml"
    config.write_text(text)
    return config


def test_a_tournament_from_a_file_with_paths_from_its_folder_and_flags_that_win(tmp_path, monkeypatch):
    config = _setup(tmp_path)
    monkeypatch.chdir("/")  # paths in the file do not depend on where talon runs
    out = CliRunner().invoke(main, ["tournament", "--config", str(config), "--deal-groups", "2"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout[out.stdout.index("["):])
    assert sorted(r["bot"] for r in rows) == ["greedy", "random"] and all(r["matches"] == 4 for r in rows)
    stored = json.loads(sqlite3.connect(tmp_path / "out" / "t.sqlite").execute("SELECT json FROM config").fetchone()[0])
    assert stored["deal_groups"] == 2 and stored["seed"] == 5  # the flag won over the file's 1
    assert stored["rule_overrides"] == {"draw_mode": "up_to_n", "match_target": "50"}


def test_a_bad_config_file_is_named_with_what_is_allowed(tmp_path):
    def run(text: str) -> str:
        config = tmp_path / "bad.toml"
        config.write_text(text)
        out = CliRunner().invoke(main, ["tournament", "--config", str(config)])
        assert out.exit_code == 2, out.output
        return out.output

    assert "bad.toml: unknown key 'colour'; keys are: bank_ms, bootstrap, bot_cpus" in run('colour = "red"\n')
    assert "bad.toml: Expected '=' after a key" in run("game crazy-eights\n")
    assert "'seed' is a list; it takes one value" in run("seed = [1, 2]\n")
    bad_value = run(CONFIG.replace("deal_groups = 1", "deal_groups = 0").replace("bots/", "/nowhere/"))
    assert "Invalid value for '--deal-groups': 0 is not in the range x>=1" in bad_value
    missing = run('game = "crazy-eights"\n')
    assert "Missing option '--rules'" in missing

"""``talon ratings`` and ``talon report`` on a real database, and the report's pieces."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from referee.cli import main
from referee.tournament.config import TournamentConfig
from referee.tournament.report import los_colour, rating_plot_svg
from referee.tournament.results import Failure, MatchResult
from referee.tournament.schedule import Schedule
from referee.tournament.store import TournamentStore

STRENGTH = {"ace": 1.2, "bee": 0.6, "cod": 0.0, "doe": -0.6}


def fill(db: Path, groups: int = 20) -> TournamentConfig:
    """A finished 3-player round robin where results follow STRENGTH (Plackett–Luce draws)."""
    config = TournamentConfig.make(
        game="crazy-eights", rules="standard", table_size=3, bots=list(STRENGTH), seed=3, deal_groups=groups
    )
    rng = np.random.default_rng(0)
    with TournamentStore.open(db, config) as store:
        for group in Schedule.from_config(config).groups():
            results = []
            for m in group.matches:
                w = np.exp([STRENGTH[b] for b in m.seats])
                order = rng.choice(3, size=3, replace=False, p=w / w.sum())
                places = [0, 0, 0]
                for pos, seat in enumerate(order):
                    places[int(seat)] = pos + 1
                fails = (Failure("timeout", 0, 3),) if m.seats[0] == "doe" else ()
                results.append(MatchResult.for_match(m, places, [10.0 * (p - 1) for p in places], fails))
            store.commit_group(group, results)
    return config


def test_ratings_json_shape_and_order(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    fill(db)
    out = CliRunner().invoke(main, ["ratings", "--db", str(db), "--json", "--bootstrap", "100",
                                    "--csv", str(tmp_path / "t.csv")])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert isinstance(rows, list) and [r["bot"] for r in rows] == ["ace", "bee", "cod", "doe"]
    for row in rows:
        assert {"bot", "rating", "lower", "upper", "matches", "win_share", "mean_score", "failures"} <= set(row)
        assert row["lower"] <= row["rating"] <= row["upper"]
        assert row["matches"] == 3 * 3 * 20  # 3 tables each, 3 rotations, 20 deal groups
    assert rows[-1]["failures"] > 0 and rows[0]["failures"] == 0
    table = list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text())))
    assert [r["bot"] for r in table] == ["ace", "bee", "cod", "doe"]
    plain = CliRunner().invoke(main, ["ratings", "--db", str(db), "--bootstrap", "20"])
    assert plain.exit_code == 0 and "ace" in plain.output and "95% CI" in plain.output


def test_report_is_one_offline_html_file(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    fill(db, groups=5)
    out = CliRunner().invoke(main, ["report", "--db", str(db), "--out", str(tmp_path / "r.html"), "--bootstrap", "50"])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<svg" in page and "Likelihood of superiority" in page and "Seat bias" in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page


def test_cli_errors_are_clear(tmp_path: Path) -> None:
    missing = CliRunner().invoke(main, ["ratings", "--db", str(tmp_path / "nope.sqlite")])
    assert missing.exit_code != 0 and "no tournament database at" in missing.output
    empty = tmp_path / "empty.sqlite"
    TournamentStore.open(empty, fill(tmp_path / "other.sqlite", groups=1)).close()
    out = CliRunner().invoke(main, ["ratings", "--db", str(empty)])
    assert out.exit_code != 0 and "no completed deal group yet" in out.output


def test_outputs_go_into_new_folders_and_a_refused_tournament_leaves_no_database(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    fill(db, groups=2)
    html = tmp_path / "new" / "r.html"
    made = CliRunner().invoke(main, ["report", "--db", str(db), "--out", str(html)])
    assert made.exit_code == 0 and html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    table = tmp_path / "also" / "new" / "t.csv"
    assert CliRunner().invoke(main, ["ratings", "--db", str(db), "--csv", str(table)]).exit_code == 0
    assert table.read_text().startswith("rank,")
    blocked = tmp_path / "file"
    blocked.write_text("a file, not a folder")
    refused = CliRunner().invoke(main, ["report", "--db", str(db), "--out", str(blocked / "r.html")])
    assert refused.exit_code == 1 and "--out" in refused.output and "cannot create its folder" in refused.output
    # a flag the schedule refuses must not leave a --db behind that neither a new run nor --resume could use
    bots = [str(Path(__file__).resolve().parents[2] / "sample_bots" / b) for b in ("random", "greedy")]
    fresh = tmp_path / "fresh.sqlite"
    args = ["tournament", "--game", "crazy-eights", "--rules", "classic", "--table-size", "2", "--bots", *bots,
            "--deal-groups", "1", "--seed", "1", "--db", str(fresh), "--sandbox", "process", "--quiet"]
    for flag, words in ((["--tables", "5"], "more than the 1 distinct tables"),
                        (["--max-strikes", "2000000"], "not in the range 1<=x<=1000000")):
        out = CliRunner().invoke(main, [*args, *flag])
        assert out.exit_code != 0 and words in out.output, out.output
        assert not fresh.exists()


def test_colours_and_plot() -> None:
    assert los_colour(0.5) == "#ffffff"
    assert los_colour(1.0) == "#64c864" and los_colour(0.0).startswith("#f0")
    from referee.tournament.ratings import RatingOptions, rate

    results = [MatchResult(f"m{i}", 0, i, ("a<b>", "c"), (1, 2) if i % 3 else (2, 1), (0.0, 0.0)) for i in range(30)]
    svg = rating_plot_svg(rate(results, RatingOptions(samples=20)))
    assert svg.count("<circle") == 2 and "a&lt;b&gt;" in svg

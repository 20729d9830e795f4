"""``talon tournament``, ``talon ratings`` and ``talon report``.

``tournament`` plays (or resumes) a round robin of deal groups into a SQLite file; ``ratings``
and ``report`` read that file at any time, even while a tournament is still being played
(they see the completed deal groups only).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from referee.tournament.config import TournamentConfig
    from referee.tournament.ratings import Ratings

DB_OPTION = click.option(
    "--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path),
    help="The tournament's SQLite file.",
)
SAMPLES_OPTION = click.option(
    "--bootstrap", "samples", type=click.IntRange(1, 100_000), default=1000, show_default=True,
    help="Deal-group bootstrap resamples for intervals and superiority.",
)
SEED_OPTION = click.option(
    "--bootstrap-seed", type=click.IntRange(0), default=0, show_default=True,
    help="Seed of the bootstrap (the same seed gives the same table).",
)
ANCHOR_OPTION = click.option("--anchor", help="Fix this bot at 1500 (default: the field's mean is 1500).")


def _load(db: Path, samples: int, seed: int, anchor: str | None) -> tuple[TournamentConfig, Ratings]:
    from referee.tournament.ratings import RatingOptions, RatingsError, rate
    from referee.tournament.store import StoreError, TournamentStore

    try:
        with TournamentStore.read(db) as store:
            config, results = store.config, store.results()
        if not results:
            raise click.ClickException(f"{db} has no completed deal group yet: nothing to rate")
        return config, rate(results, RatingOptions(samples=samples, seed=seed, anchor=anchor))
    except (StoreError, RatingsError) as err:
        raise click.ClickException(str(err)) from None


@click.command()
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per bot (a list).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the table as CSV.")
@click.option("--full-json", "full_json", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write everything (superiority matrix, seat bias, per-seat rows) as JSON.")
@SAMPLES_OPTION
@SEED_OPTION
@ANCHOR_OPTION
def ratings(db: Path, as_json: bool, csv_path: Path | None, full_json: Path | None, samples: int,
            bootstrap_seed: int, anchor: str | None) -> None:
    """Rate the bots of a tournament: Plackett–Luce with deal-group bootstrap intervals."""
    from rich.console import Console

    from referee.tournament.report import csv_text, leaderboard, rows

    _, table = _load(db, samples, bootstrap_seed, anchor)
    if csv_path is not None:
        csv_path.write_text(csv_text(table))
    if full_json is not None:
        full_json.write_text(json.dumps(table.to_json(), indent=1) + "\n")
    if as_json:
        click.echo(json.dumps(rows(table), indent=1))
    else:
        Console(file=sys.stdout).print(leaderboard(table, title=f"Ratings: {db.name}"))


@click.command()
@DB_OPTION
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write.")
@SAMPLES_OPTION
@SEED_OPTION
@ANCHOR_OPTION
def report(db: Path, out: Path, samples: int, bootstrap_seed: int, anchor: str | None) -> None:
    """Write a self-contained HTML report (leaderboard, superiority matrix, rating plot)."""
    from referee.tournament.report import html_report

    config, table = _load(db, samples, bootstrap_seed, anchor)
    out.write_text(html_report(table, config), encoding="utf-8")
    click.echo(f"wrote {out}")

"""``talon tournament``, ``talon ratings`` and ``talon report``.

``tournament`` plays (or resumes) a round robin of deal groups into a SQLite file; ``ratings``
and ``report`` read that file at any time, even while a tournament is still being played
(they see the completed deal groups only).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee.cli_config import config_option
from referee.cli_limits import container_limit_options, limits_from_flags
from referee.cli_output import make_folder, write_output
from referee.cli_rules import parse_overrides
from referee.cli_signals import stoppable

if TYPE_CHECKING:
    from referee.sandbox.base import BotSpec
    from referee.tournament.config import TournamentConfig
    from referee.tournament.progress import ProgressView
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
        write_output(csv_path, csv_text(table), "--csv")
    if full_json is not None:
        write_output(full_json, json.dumps(table.to_json(), indent=1) + "\n", "--full-json")
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
    write_output(out, html_report(table, config), "--out")
    click.echo(f"wrote {out}")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset``
    narrows; ``os.cpu_count()`` where affinity is unknown): the default ``--concurrency``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@click.command()
@config_option
@click.option("--game", required=True, type=click.Choice(["crazy-eights", "crazy-rummy"]), help="The game.")
@click.option("--rules", "preset", required=True, help="The rules preset (see `talon rules`).")
@click.option("--set", "sets", multiple=True, metavar="SWITCH=VALUE", help="Override one rule switch.")
@click.option("--table-size", required=True, type=int, help="Players per match (2-7 Crazy Eights, 2-6 Crazy Rummy).")
@click.option("--bots", "bot_dirs", multiple=True, required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Bot directories (the bot's name is the directory's name): --bots a b c, or repeat --bots.")
@click.argument("more_bots", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@click.option("--deal-groups", required=True, type=click.IntRange(1), help="Deal groups per table.")
@click.option("--seed", required=True, type=click.IntRange(0, 2**63 - 1),
              help="The tournament seed: with the deal key (--deal-key), it fixes every deal.")
@click.option("--deal-key", default="", metavar="HEX",
              help="The secret mixed into every deal seed (32 hex digits), so bots cannot compute deals from "
                   "the seed. Default: a new random key, kept in --db. Give an earlier tournament's key (its report "
                   "shows it) to play its deals again.")
@DB_OPTION
@click.option("--resume", is_flag=True, help="Continue the tournament stored in --db (same settings).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=usable_cores,
              show_default=f"the number of cores, {usable_cores()} here", help="Matches at once.")
@click.option("--sandbox", "sandbox_kind", type=click.Choice(["process", "docker"]),
              help="Where bots run. Default: docker where a Docker engine answers and the bot base image is "
                   "built, else process (one line says which and why); on --resume, the stored tournament's.")
@click.option("--tables", type=click.IntRange(1), help="Play this many tables (a balanced subset); default: all.")
@click.option("--gauntlet", "challenger", help="Gauntlet mode: this bot against the rest of the field.")
@click.option("--decision-ms", type=click.IntRange(1, 600_000), help="Time per decision (match loop default).")
@click.option("--bank-ms", type=click.IntRange(0, 3_600_000), help="Time bank per seat and match.")
@click.option("--max-strikes", type=click.IntRange(1, 1_000_000), help="Failures before the fallback keeps the seat.")
@container_limit_options
@click.option("--replays", "replay_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write each match's replay into this directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the final ratings as JSON rows (progress: plain lines).")
@click.option("--quiet", is_flag=True, help="No progress display or lines.")
@SAMPLES_OPTION
def tournament(game: str, preset: str, sets: tuple[str, ...], table_size: int, bot_dirs: tuple[Path, ...],
               more_bots: tuple[Path, ...], deal_groups: int, seed: int, deal_key: str, db: Path, resume: bool,
               concurrency: int,
               sandbox_kind: str | None, tables: int | None, challenger: str | None, decision_ms: int | None,
               bank_ms: int | None, max_strikes: int | None, bot_cpus: float | None, bot_memory: str | None,
               bot_pids: int | None, bot_runtime: str | None, replay_dir: Path | None, as_json: bool, quiet: bool,
               samples: int) -> None:
    """Play a round robin of deal groups (one deal per seat rotation) into --db, then rate it.

    On a terminal a live display shows games done, games/s, the time left and a provisional
    leaderboard; in a log (stdout not a terminal, or --json) a line per 5 % of the deal groups.
    Ctrl-C stops the running matches, keeps every finished deal group (and the finished matches
    of unfinished ones), stops every bot and prints the command that continues (--resume);
    the exit code is then 130.
    """
    import asyncio

    from referee.sandbox.base import BotSpec, SandboxError
    from referee.tournament.config import ConfigError, TournamentConfig
    from referee.tournament.runner import clocks_of, matches_so_far, run_tournament, tournament_options
    from referee.tournament.schedule import Schedule
    from referee.tournament.store import StoreError, TournamentStore

    try:
        specs = [BotSpec.from_dir(d) for d in (*bot_dirs, *more_bots)]
        kind = _sandbox_kind(sandbox_kind, specs, db, resume)
        limits = limits_from_flags(bot_cpus, bot_memory, bot_pids, bot_runtime, kind)
        config = TournamentConfig.make(
            game=game, rules=preset, table_size=table_size, bots=[s.name for s in specs], seed=seed,
            deal_groups=deal_groups, mode="gauntlet" if challenger else "round-robin", challenger=challenger,
            tables=tables, sandbox=kind, rule_overrides=parse_overrides(sets),
            options=tournament_options(specs, decision_ms, bank_ms, max_strikes, limits), deal_key=deal_key,
        )
        _check_rules(config)
        # everything a config can be refused for, before --db is written: a refused run must
        # leave no store behind that neither a new run nor --resume could use
        Schedule.from_config(config)
        clocks_of(config)
    except (SandboxError, ConfigError, ValueError) as err:
        raise click.ClickException(str(err)) from None
    if replay_dir is not None:
        make_folder(replay_dir, "--replays")

    cores = usable_cores()
    if concurrency > cores:
        click.echo(f"warning: --concurrency {concurrency} is more than the {cores} cores here; matches will "
                   "compete for CPU and bots may lose time (timeouts are recorded as their failures)", err=True)
    try:
        with TournamentStore.open(db, config, resume=resume) as store:
            with _view(quiet, as_json, *matches_so_far(store)) as view:
                asyncio.run(stoppable(run_tournament(store, {s.name: s for s in specs}, concurrency=concurrency,
                                                     replay_dir=replay_dir, on_progress=view.group,
                                                     on_match=view.match)))
    except (StoreError, ConfigError, SandboxError) as err:
        raise click.ClickException(str(err)) from None
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C, or SIGTERM (see cli_signals)
        click.echo(_interrupted(db), err=True)
        sys.exit(130)
    from referee.tournament.report import leaderboard, rows

    _, table = _load(db, samples, 0, None)
    if as_json:
        click.echo(json.dumps(rows(table), indent=1))
    else:
        from rich.console import Console

        Console(file=sys.stdout).print(leaderboard(table, title=f"Ratings: {db.name}"))


def _sandbox_kind(asked: str | None, specs: list[BotSpec], db: Path, resume: bool) -> str:
    """The sandbox to use: the one asked for (Docker checked up front), else the stored
    tournament's on --resume, else Docker where it can run here (one line on stderr says
    which and why)."""
    from referee.sandbox.select import default_sandbox_kind, require_docker
    from referee.tournament.store import StoreError, TournamentStore

    if asked is None and resume and db.is_file():
        try:
            with TournamentStore.read(db) as stored:
                kind = stored.config.sandbox
        except StoreError:
            pass  # TournamentStore.open names what is wrong with the file
        else:
            if kind == "docker":
                require_docker(specs, f"{db} was started with --sandbox docker", process_allowed=False)
            click.echo(f"sandbox: {kind}, as when the tournament in {db} started (--sandbox {kind})", err=True)
            return kind
    if asked is None:
        default, why = default_sandbox_kind(specs)
        click.echo(f"sandbox: {why}", err=True)
        return default.value
    if asked == "docker":
        require_docker(specs)
    return asked


def _view(quiet: bool, as_json: bool, matches_done: int, matches_total: int) -> ProgressView:
    """Live display on a terminal, plain lines in a log or with --json, nothing with --quiet."""
    from referee.tournament.progress import LiveView, PlainLines, Silent

    if quiet:
        return Silent()
    if as_json or not sys.stdout.isatty():
        return PlainLines(sys.stderr)
    from rich.console import Console

    return LiveView(Console(file=sys.stdout), matches_done, matches_total)


def _interrupted(db: Path) -> str:
    """What Ctrl-C kept, and the exact command that continues."""
    import shlex
    import sqlite3

    from referee.tournament.schedule import Schedule
    from referee.tournament.store import StoreError, TournamentStore

    try:
        with TournamentStore.read(db) as store:
            groups = len(store.completed_groups())
            total = Schedule.from_config(store.config).group_count
        kept = f"{groups} of {total} deal groups are saved in {db}"
    except (StoreError, sqlite3.Error):  # interrupted while the file was being made
        kept = f"nothing was saved in {db} yet"
    argv = [*sys.argv[1:], *([] if "--resume" in sys.argv else ["--resume"])]
    return (f"\ninterrupted: the running matches were stopped and every bot with them; {kept} (finished "
            f"matches of unfinished groups are kept too). Continue with:\n  {shlex.join(['talon', *argv])}")


def _check_rules(config: TournamentConfig) -> None:
    """Refuse rules the engine refuses, before any bot starts."""
    from referee.games import make_rules

    rules = make_rules(config.game, config.rules, dict(config.rule_overrides))
    rules.check_players(config.table_size)

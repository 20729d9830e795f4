"""``talon play``, ``talon replay verify`` and ``talon bench referee``.

``talon play`` runs one match: it starts a referee service on a private Unix socket in this
process, starts one bot per ``--bot`` directory in the chosen sandbox, plays, prints the
standings (or JSON) and writes the replay file if asked.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from referee.cli_limits import container_limit_options, limits_from_flags
from referee.cli_rules import parse_overrides
from referee.cli_signals import stoppable
from referee.games import GAMES, RulesError
from referee.match_types import Clocks, ConfigError, MatchConfig, MatchResult


async def play_match(config: MatchConfig, bots: list[Path], sandbox_kind: str,
                     limits: Mapping[str, Any] | None = None,
                     keep_logs: list[tuple[str, str]] | None = None) -> MatchResult:
    """One match between the bots in ``bots`` on a private referee; returns its result.
    ``limits``: container limits as a tournament's options (see :mod:`referee.cli_limits`);
    ``keep_logs``: if given, gets ``(bot name, output)`` per bot as the match stops it."""
    from referee.match import BotSeat, run_match
    from referee.sandbox.base import BotSpec, Sandbox
    from referee.sandbox.keep_logs import KeepLogs
    from referee.server import RefereeService, ServiceConfig

    specs = [BotSpec.from_dir(b) for b in bots]
    with tempfile.TemporaryDirectory(prefix="talon-") as tmp:
        async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
            sandbox: Sandbox
            if sandbox_kind == "docker":
                from referee.sandbox.docker_sandbox import DockerSandbox

                sandbox = DockerSandbox.with_limits(service, limits or {})
            else:
                from referee.sandbox.process import ProcessSandbox

                sandbox = ProcessSandbox()
            keeper = KeepLogs(sandbox) if keep_logs is not None else None
            try:
                return await run_match(config, [BotSeat(s) for s in specs], service=service,
                                       sandbox=keeper or sandbox)
            finally:
                await sandbox.close()
                if keeper is not None and keep_logs is not None:
                    keep_logs.extend(keeper.kept)


def standings_text(result: MatchResult) -> str:
    """The standings as a small table, best first, then the failures."""
    lines = [f"{result.game} {result.rules.get('preset')} seed {result.seed}: {result.decisions} decisions "
             f"in {result.duration_ms / 1000:.2f} s", "place  seat  bot                   score  strikes"]
    for s in sorted(result.seats, key=lambda s: (s.place, s.seat)):
        flag = "  (taken over)" if s.taken_over else ""
        lines.append(f"{s.place:>5}  {s.seat:>4}  {s.name[:20]:<20}  {s.score:>5}  {s.strikes:>7}{flag}")
    for f in result.failures:
        lines.append(f"failure: seat {f.seat} at decision {f.decision}: {f.for_operator()}")
    return "\n".join(lines)


@click.command()
@click.option("--game", required=True, type=click.Choice(GAMES), help="The game.")
@click.option("--rules", "preset", required=True, help="The preset, e.g. classic (see `talon rules`).")
@click.option("--bot", "bots", multiple=True, required=True, type=click.Path(file_okay=False, path_type=Path),
              help="A bot directory (bot.py, or an executable bot); one seat per --bot, in seat order.")
@click.option("--seed", required=True, type=click.IntRange(0, 2**64 - 1), help="The match seed.")
@click.option("--set", "sets", multiple=True, metavar="SWITCH=VALUE", help="Override one rule switch.")
@click.option("--sandbox", "sandbox_kind", type=click.Choice(["process", "docker"]), default=None,
              help="Where bots run. [default: docker where it can run here, else process]")
@click.option("--decision-ms", type=click.IntRange(1, 600_000), default=Clocks.decision_ms, show_default=True,
              help="Time per decision before the bank is used.")
@click.option("--bank-ms", type=click.IntRange(0, 3_600_000), default=Clocks.bank_ms, show_default=True,
              help="Time bank per seat for the match.")
@click.option("--max-strikes", type=click.IntRange(1, 1_000_000), default=Clocks.max_strikes, show_default=True,
              help="Failures before the fallback player keeps the seat.")
@click.option("--connect-ms", type=click.IntRange(1, 600_000), default=Clocks.connect_timeout_ms, show_default=True,
              help="Time each bot has from its start to connect (a bot that loads a model may need more).")
@container_limit_options
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the replay (JSON) here.")
@click.option("--bot-logs", "logs_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write what each bot printed (stdout and stderr, the last 64 KiB) into this folder, one "
                   "file per bot in the order they stopped; the SDK's first line names the seat.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def play(game: str, preset: str, bots: tuple[Path, ...], seed: int, sets: tuple[str, ...], sandbox_kind: str | None,
         decision_ms: int, bank_ms: int, max_strikes: int, connect_ms: int, bot_cpus: float | None, bot_memory: str | None,
         bot_pids: int | None, bot_runtime: str | None, replay_path: Path | None, logs_dir: Path | None, as_json: bool) -> None:
    """Run one match, one seat per --bot, and print the standings."""
    from referee.cli_output import check_writable, make_folder, write_output
    from referee.replay import write_replay
    from referee.sandbox.base import SandboxError

    if replay_path is not None:
        check_writable(replay_path, "--replay")
    if logs_dir is not None:
        make_folder(logs_dir, "--bot-logs")
    kept: list[tuple[str, str]] | None = [] if logs_dir is not None else None
    try:
        config = MatchConfig(game, preset, seed, parse_overrides(sets),
                             Clocks(decision_ms=decision_ms, bank_ms=bank_ms, max_strikes=max_strikes,
                                    connect_timeout_ms=connect_ms))
        kind = _sandbox_kind(sandbox_kind, list(bots))
        limits = limits_from_flags(bot_cpus, bot_memory, bot_pids, bot_runtime, kind)
        result = asyncio.run(stoppable(play_match(config, list(bots), kind, limits, kept)))
    except (RulesError, ConfigError, SandboxError) as err:
        raise click.ClickException(str(err)) from None
    except asyncio.CancelledError:  # SIGTERM: the bots were stopped on the way out
        click.echo("stopped (SIGTERM): the match was not finished", err=True)
        sys.exit(143)
    if as_json:  # the result first: a replay that cannot be written must not hide it
        click.echo(json.dumps(result.summary_json(), indent=1))
    else:
        click.echo(standings_text(result))
    if logs_dir is not None and kept is not None:
        for number, (name, text) in enumerate(kept, 1):
            write_output(logs_dir / f"{number}-{name}.log", text, "--bot-logs")
    if replay_path is not None:
        try:
            write_replay(replay_path, result.replay)
        except OSError as err:
            raise click.ClickException(f"--replay {replay_path}: the match was played but its replay could not "
                                       f"be written ({err.strerror or err})") from None


def _sandbox_kind(asked: str | None, bots: list[Path]) -> str:
    """The sandbox asked for (Docker checked up front), else Docker where it can run here; one
    line on stderr says which and why, so nobody is surprised that bots ran unboxed."""
    from referee.sandbox.base import BotSpec
    from referee.sandbox.select import default_sandbox_kind, require_docker

    specs = [BotSpec.from_dir(b) for b in bots]
    if asked == "docker":
        require_docker(specs)
    if asked is not None:
        return asked
    kind, why = default_sandbox_kind(specs)
    click.echo(f"sandbox: {why}", err=True)
    return kind.value


@click.group()
def replay() -> None:
    """Replay files written by `talon play --replay` (and by tournaments with --replays)."""


@replay.command("verify")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def replay_verify(path: Path) -> None:
    """Re-simulate a replay and check every event, score and place; exit 1 on a difference."""
    from referee.replay import load_replay, verify_replay

    try:
        data = load_replay(path)
    except ValueError as err:
        raise click.ClickException(str(err)) from None
    problems = verify_replay(data)
    if problems:
        for problem in problems:
            click.echo(f"mismatch: {problem}", err=True)
        sys.exit(1)
    click.echo(f"ok: {len(data['actions'])} actions and {len(data['events'])} events re-simulated exactly")


@replay.command("show")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seat", type=click.IntRange(0), default=None,
              help="Only this seat's decisions, each after the view it decided on (its own cards only).")
@click.option("--hand", type=click.IntRange(1), default=None, help="Only this hand (deal), counted from 1.")
def replay_show(path: Path, seat: int | None, hand: int | None) -> None:
    """Print a replay decision by decision: who played what, how long it took, the failures
    where they happened, hand ends and the result; with --seat, what that seat saw each time."""
    from referee.replay import load_replay
    from referee.replay_text import ReplayTextError, replay_lines

    try:
        data = load_replay(path)
    except ValueError as err:
        raise click.ClickException(str(err)) from None
    seats = len(data["seats"])
    if seat is not None and seat >= seats:
        raise click.BadParameter(f"this replay has seats 0 to {seats - 1}, not {seat}", param_hint="--seat")
    try:
        for line in replay_lines(data, seat, hand):
            click.echo(line)
    except ReplayTextError as err:
        raise click.ClickException(f"replay {str(path)!r}: {err}") from None


@click.command("referee")
@click.option("--decisions", type=click.IntRange(100), default=5000, show_default=True,
              help="Timed referee decisions in the sequential case (paired with as many bare round trips).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=16, show_default=True,
              help="Matches (and bare streams) at once in the throughput case.")
@click.option("--rounds", type=click.IntRange(1, 9), default=3, show_default=True,
              help="Rounds of the concurrent case (referee window, then bare window); medians are reported.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the default output is JSON too).")
def bench_referee(decisions: int, concurrency: int, rounds: int, as_json: bool) -> None:
    """Referee round trip and throughput against a bare gRPC ping-pong, as JSON."""
    from referee.bench_referee import run_benchmark

    del as_json  # the output is always one JSON object
    click.echo(json.dumps(asyncio.run(run_benchmark(decisions, concurrency, rounds)), indent=1))

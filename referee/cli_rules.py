"""``talon rules`` (games, presets, switches) and ``talon bench engine``."""

from __future__ import annotations

import json
from typing import Any

import click

from referee.games import GAMES, RulesError, make_rules, rules_class
from referee.games.base import switch_text


def parse_overrides(items: tuple[str, ...]) -> dict[str, str]:
    """``("draw_mode=up_to_n", ...)`` -> a dict; values stay text, the rule set checks them."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: write a switch as NAME=VALUE, like draw_mode=up_to_n",
                                     param_hint="--set")
        out[name.strip()] = value.strip()
    return out


def _game_table(game: str) -> dict[str, Any]:
    cls = rules_class(game)
    return {
        "game": game,
        "presets": [
            {"name": name, "help": cls.PRESET_HELP.get(name, ""), "overrides": dict(values)}
            for name, values in cls.PRESETS.items()
        ],
        "switches": [sw.to_json() for sw in cls.SWITCHES],
        "shorthands": [sh.to_json() for sh in cls.SHORTHANDS],
    }


@click.command()
@click.option("--game", type=click.Choice(GAMES), help="Only this game.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def rules(game: str | None, as_json: bool) -> None:
    """List the games, their presets and every switch with its default and allowed values."""
    try:
        tables = [_game_table(g) for g in ([game] if game else GAMES)]
    except RulesError as err:  # a game whose engine is not installed
        raise click.ClickException(str(err)) from None
    if as_json:
        click.echo(json.dumps(tables, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for table in tables:
        presets = Table(title=f"{table['game']}: presets", show_lines=False)
        presets.add_column("preset")
        presets.add_column("what it is")
        for p in table["presets"]:
            presets.add_row(p["name"], p["help"])
        console.print(presets)
        switches = Table(title=f"{table['game']}: switches (set with --set NAME=VALUE)")
        for col in ("switch", "default", "allowed", "meaning"):
            switches.add_column(col, overflow="fold")
        cls = rules_class(table["game"])
        for sw in cls.SWITCHES:
            switches.add_row(sw.name, switch_text(sw.default), sw.allowed(), sw.help)
        for sh in cls.SHORTHANDS:
            switches.add_row(sh.name, "(the preset's)", sh.allowed(), "shorthand: " + sh.help)
        console.print(switches)


@click.command("engine")
@click.option("--game", type=click.Choice(GAMES), default="crazy-eights", show_default=True)
@click.option("--rules", "preset", default="classic", show_default=True, help="Preset name.")
@click.option("--set", "overrides", multiple=True, metavar="NAME=VALUE", help="Override a switch.")
@click.option("--players", type=int, default=2, show_default=True)
@click.option("--seconds", type=float, default=3.0, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_engine(game: str, preset: str, overrides: tuple[str, ...], players: int, seconds: float,
                 seed: int, as_json: bool) -> None:
    """Random legal games in-process: games/s, decisions/s, decisions per game."""
    from referee.benchmarking import engine_throughput

    try:
        rule_set = make_rules(game, preset, parse_overrides(overrides))
        rule_set.check_players(players)
    except RulesError as err:
        raise click.ClickException(str(err)) from None
    result = engine_throughput(game, rule_set, players, seconds, seed).to_json()
    if as_json:
        click.echo(json.dumps(result))
    else:
        for key, value in result.items():
            click.echo(f"{key:20} {value}")

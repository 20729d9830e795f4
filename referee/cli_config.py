"""``--config FILE``: a command's options from a TOML file, so a tournament is one file to keep.

Keys are the command's long option names (``table-size`` or ``table_size``); ``bots`` is a
list, ``set`` a table of rule switches. Paths in the file are relative to the file's folder.
Flags on the command line win over the file. Values are checked exactly as the flags are, and
an unknown key or unreadable file is an error naming the file, the key and what is allowed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from referee.games.base import switch_text

F = TypeVar("F", bound=Callable[..., Any])
_NOT_IN_FILES = {"config", "help"}


def config_option(command: F) -> F:
    """Add ``--config FILE`` to a click command (apply it above the command's options)."""
    return click.option(
        "--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), is_eager=True,
        expose_value=False, callback=_load,
        help="Read options from this TOML file (keys: the long option names; flags given here win).",
    )(command)


def _keys(command: click.Command) -> dict[str, click.Option]:
    """TOML key (long option name, dashes as underscores) -> the option it sets."""
    keys: dict[str, click.Option] = {}
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        longs = [o for o in param.opts if o.startswith("--")]
        if longs and longs[0][2:] not in _NOT_IN_FILES:
            keys[longs[0][2:].replace("-", "_")] = param
    return keys


def _load(ctx: click.Context, _param: click.Parameter, path: Path | None) -> None:
    if path is None:
        return
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise click.BadParameter(f"{path}: {err}", param_hint="--config") from None
    keys = _keys(ctx.command)
    defaults: dict[str, Any] = {}
    for key, value in data.items():
        option = keys.get(key.replace("-", "_"))
        if option is None or option.name is None:
            raise click.BadParameter(f"{path}: unknown key {key!r}; keys are: {', '.join(sorted(keys))}",
                                     param_hint="--config")
        defaults[option.name] = _value(path, key, option, value)
    ctx.default_map = {**(ctx.default_map or {}), **defaults}


def _value(path: Path, key: str, option: click.Option, value: Any) -> Any:
    """The file's ``value`` for ``option`` as click takes a default: lists for repeatable
    options, ``SWITCH=VALUE`` text for a table, paths resolved from the file's folder."""
    if isinstance(value, dict):
        if not option.multiple:
            raise click.BadParameter(f"{path}: {key!r} is a table; it takes one value", param_hint="--config")
        value = [f"{k}={switch_text(v)}" for k, v in value.items()]
    if option.multiple and not isinstance(value, list):
        value = [value]
    if not option.multiple and isinstance(value, list):
        raise click.BadParameter(f"{path}: {key!r} is a list; it takes one value", param_hint="--config")
    if isinstance(option.type, click.Path):
        base = path.resolve().parent
        value = [str(base / str(v)) for v in value] if option.multiple else str(base / str(value))
    return value

"""``talon serve``: the referee service on its own, for bots in any language and for tools.

Matches are started through the control API (``talon.v1.MatchControl`` in
``proto/talon/v1/control.proto``): each ``StartMatch`` returns a token per seat, and whoever
runs the bots points them at the bot listener with those tokens. SIGTERM or Ctrl-C shuts down
gracefully: new matches are refused, running ones get ``--grace-s`` seconds to finish, the
rest are ended (their bots are told why).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the service pulls in grpc: imported when serving, so that `talon --help` stays quick
    from referee.server import ServiceConfig

_SOCKET = click.Path(dir_okay=False, path_type=Path)


@click.command()
@click.option("--bot-unix", type=_SOCKET, help="Unix socket for bots (a path under 107 bytes).")
@click.option("--bot-tcp", metavar="HOST:PORT", help="TCP address for bots; port 0 picks a free one.")
@click.option("--control-unix", type=_SOCKET, help="Unix socket for the control API.")
@click.option("--control-tcp", metavar="HOST:PORT", help="TCP address for the control API; port 0 picks a free one.")
@click.option("--max-message-bytes", type=click.IntRange(1024, 64 * 1024 * 1024),
              help="Largest message accepted from a bot or a tool.  [default: 65536]")
@click.option("--grace-s", type=click.FloatRange(0, 3600), default=30.0, show_default=True,
              help="On SIGTERM or Ctrl-C: how long running matches may take to finish.")
def serve(bot_unix: Path | None, bot_tcp: str | None, control_unix: Path | None, control_tcp: str | None,
          max_message_bytes: int | None, grace_s: float) -> None:
    """Run the referee service until SIGTERM or Ctrl-C.

    Start matches with the control API (talon.v1.MatchControl: StartMatch, WatchMatch,
    GetResult) and run the bots yourself, each with TALON_ADDRESS = the bot listener and
    TALON_TOKEN = its seat's token. The standard gRPC health service answers on both listeners.
    The listeners have no TLS: bind TCP to localhost or a private network.
    """
    from referee.server import ServiceConfig

    if bot_unix is None and bot_tcp is None:
        raise click.UsageError("give a bot listener: --bot-unix PATH and/or --bot-tcp HOST:PORT")
    if control_unix is None and control_tcp is None:
        raise click.UsageError("give a control listener (matches are started through it): --control-unix PATH "
                               "and/or --control-tcp HOST:PORT")
    for path in (bot_unix, control_unix):
        if path is not None and path.exists():
            raise click.UsageError(f"{path} exists: is another referee serving there? Remove it or pick another path")
    limit: dict[str, Any] = {} if max_message_bytes is None else {"max_message_bytes": max_message_bytes}
    config = ServiceConfig(bot_unix=bot_unix, bot_tcp=bot_tcp, control_unix=control_unix, control_tcp=control_tcp,
                           **limit)
    try:
        asyncio.run(_serve(config, grace_s))
    except OSError as err:
        raise click.ClickException(str(err)) from None


async def _serve(config: ServiceConfig, grace_s: float) -> None:
    from referee.server import RefereeService

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    service = RefereeService(config)
    await service.start()
    try:
        click.echo(f"serving: bots on {service.bot_target}"
                   + (f" and {service.bot_tcp_target}" if config.bot_tcp and config.bot_unix else "")
                   + f"; control on {service.control_target}", err=True)
        await stop.wait()
        click.echo(f"stopping: running matches have {grace_s:g} s to finish", err=True)
    finally:
        await service.stop(grace_s)
    click.echo("stopped", err=True)

"""``talon match start|result``: the control API of a running ``talon serve`` from the shell.

So that a bot written in any language can be tried against the referee without writing a
gRPC client first: ``talon serve`` in one terminal, ``talon match start`` here (it prints each
seat's token and the bot target), then each bot started with ``TALON_ADDRESS`` and
``TALON_TOKEN``, and ``talon match result --wait`` for the standings.
"""

from __future__ import annotations

import json
from typing import Any

import click

from referee.cli_rules import parse_overrides

_CONTROL = click.option("--control", "target", required=True, metavar="TARGET",
                        help="The referee's control listener: unix:///path or host:port (talon serve prints it).")


def _call(target: str, method: str, request: Any, reply: Any, timeout_s: float | None) -> Any:
    """One unary control call; :raises click.ClickException: with the referee's own words."""
    import grpc

    with grpc.insecure_channel(target) as channel:
        call = channel.unary_unary(f"/talon.v1.MatchControl/{method}", request_serializer=type(request).SerializeToString,
                                   response_deserializer=reply.FromString)
        try:
            return call(request, timeout=timeout_s)
        except grpc.RpcError as err:
            code = err.code()
            details = err.details()
            if code is grpc.StatusCode.UNAVAILABLE:
                raise click.ClickException(f"no referee answers at {target}: is `talon serve` running there? "
                                           f"({details})") from None
            raise click.ClickException(f"{code.name}: {details}") from None


def _json(message: Any) -> str:
    from google.protobuf.json_format import MessageToDict

    return json.dumps(MessageToDict(message, preserving_proto_field_name=True), indent=1)


@click.group()
def match() -> None:
    """Start matches on a running `talon serve` and fetch their results."""


@match.command("start")
@_CONTROL
@click.option("--game", required=True, type=click.Choice(["crazy-eights", "crazy-rummy"]), help="The game.")
@click.option("--rules", "preset", required=True, help="The preset (see `talon rules`).")
@click.option("--seat", "seats", multiple=True, required=True, metavar="NAME", help="A seat's name; one per seat.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="The match seed.")
@click.option("--set", "sets", multiple=True, metavar="SWITCH=VALUE", help="Override one rule switch.")
@click.option("--decision-ms", type=click.IntRange(0, 600_000), default=0, help="Time per decision (0: 1000).")
@click.option("--bank-ms", type=click.IntRange(0, 3_600_000), default=0, help="Time bank per seat (0: 60000).")
@click.option("--connect-ms", type=click.IntRange(0, 600_000), default=0,
              help="Time each bot has to connect (0: 10000); the match starts when every seat has.")
def start(target: str, game: str, preset: str, seats: tuple[str, ...], seed: int, sets: tuple[str, ...],
          decision_ms: int, bank_ms: int, connect_ms: int) -> None:
    """Register a match; print its id, the bot target and each seat's token (JSON)."""
    from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
    from talon_sdk._proto.talon.v1 import control_pb2 as cpb

    request = cpb.StartMatchRequest(game=game, preset=preset, overrides=parse_overrides(sets), seed=seed,
                                    seat_names=seats, clocks=bpb.Clocks(decision_ms=decision_ms, bank_ms=bank_ms),
                                    connect_timeout_ms=connect_ms)
    reply = _call(target, "StartMatch", request, cpb.StartMatchResponse, 30)
    click.echo(json.dumps({"match_id": reply.match_id, "bot_target": reply.bot_target,
                           "seats": [{"seat": t.seat, "name": seats[t.seat], "token": t.token} for t in reply.seats]},
                          indent=1))


@match.command("result")
@_CONTROL
@click.argument("match_id")
@click.option("--wait", is_flag=True, help="Wait for the match to end.")
def result(target: str, match_id: str, wait: bool) -> None:
    """Print a match's result (JSON); without --wait, an error while it still runs."""
    from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
    from talon_sdk._proto.talon.v1 import control_pb2 as cpb

    reply = _call(target, "GetResult", cpb.GetResultRequest(match_id=match_id, wait=wait), bpb.MatchResult, None)
    click.echo(_json(reply))

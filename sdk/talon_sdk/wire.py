"""The bot protocol by hand: a blocking stream you feed and read yourself, without :class:`Bot`.

For tools and tests that must send what :func:`talon_sdk.run` never would: the hostile sample
bots (``sample_bots/hostile``) flood the referee, send oversized messages, answer out of turn
and present other seats' tokens with these helpers. A bot should use :class:`~talon_sdk.Bot`
and :func:`~talon_sdk.run`, which also keep the clocks, the warm token file and the logs.

    outbox = queue.Queue()
    outbox.put(hello(seat_token(), "by-hand"))
    stream = open_stream(outbox)
    answer_until_over(stream, outbox)  # or read and answer yourself
    outbox.put(None)
    print(read_to_end(stream))
"""

from __future__ import annotations

import os
import queue
from collections.abc import Iterator
from typing import Any

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb

PLAY_METHOD = "/talon.v1.BotSession/Play"
"""The bot session's one rpc (``BotSession.Play`` in ``proto/talon/v1/bot.proto``); the
SDK's client uses it too."""


def seat_token() -> str:
    """The seat token the sandbox gave: ``TALON_TOKEN``, else what ``TALON_TOKEN_FILE`` holds."""
    if "TALON_TOKEN" in os.environ:
        return os.environ["TALON_TOKEN"]
    with open(os.environ["TALON_TOKEN_FILE"]) as handle:
        return handle.read().strip()


def open_stream(outbox: queue.Queue[bpb.BotMessage | None], address: str | None = None,
                timeout: float = 120.0) -> Any:
    """A ``Play`` stream to the referee at ``address`` (default: ``TALON_ADDRESS``) sending what is
    put in ``outbox``, in order (``None`` ends the sending side), for at most ``timeout`` seconds.

    Iterate the result for the referee's messages (:class:`grpc.RpcError` carries the status the
    referee ended the stream with); ``cancel()`` ends it early."""
    channel = grpc.insecure_channel(address or os.environ["TALON_ADDRESS"])
    play = channel.stream_stream(PLAY_METHOD, request_serializer=bpb.BotMessage.SerializeToString,
                                 response_deserializer=bpb.RefereeMessage.FromString)
    return play(iter(outbox.get, None), timeout=timeout)


def hello(token: str, bot_name: str) -> bpb.BotMessage:
    """The first message of a stream: the seat token and the bot's name."""
    return bpb.BotMessage(hello=bpb.Hello(token=token, bot_name=bot_name))


def answer(request_id: int, action: gpb.Action) -> bpb.BotMessage:
    """The answer to request ``request_id``."""
    return bpb.BotMessage(answer=bpb.Answer(request_id=request_id, action=action))


def first_legal(request: bpb.DecisionRequest) -> gpb.Action:
    """The first legal action ``request`` lists (Rummy's unlisted draws: ``draw``)."""
    legal = request.legal
    if legal.crazy_eights:
        return gpb.Action(crazy_eights=legal.crazy_eights[0])
    action = gpb.Action()
    if legal.crazy_rummy:
        action.crazy_rummy.CopyFrom(legal.crazy_rummy[0])
    else:
        action.text = "draw"
    return action


def answer_until_over(stream: Iterator[bpb.RefereeMessage], outbox: queue.Queue[bpb.BotMessage | None]) -> None:
    """Answer each request of ``stream`` with its first legal action until MatchOver arrives
    or the stream ends with status OK; :raises grpc.RpcError: when it ends with another."""
    for message in stream:
        which = message.WhichOneof("message")
        if which == "request":
            outbox.put(answer(message.request.request_id, first_legal(message.request)))
        elif which == "over":
            return


def read_to_end(stream: Iterator[bpb.RefereeMessage]) -> str:
    """Read ``stream`` to its end, printing each error the referee reports; how it ended:
    ``"OK"``, or the status code's name and the referee's words."""
    try:
        for message in stream:
            if message.WhichOneof("message") == "error":
                print(f"referee: {message.error.message}", flush=True)
        return "OK"
    except grpc.RpcError as error:
        return f"{error.code().name}: {error.details()}"

"""Hostile bot: sends 20,000 answers nobody asked for, as fast as gRPC takes them; the
referee must end its stream (a protocol error) without slowing the other seats."""

import json
import os
import queue
import sys

import grpc
from talon_sdk._proto.talon.v1 import bot_pb2, game_pb2

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def seat_token():
    if "TALON_TOKEN" in os.environ:
        return os.environ["TALON_TOKEN"]
    with open(os.environ["TALON_TOKEN_FILE"]) as handle:
        return handle.read().strip()


def open_stream(outbox, timeout=120.0):
    """A Play stream fed from ``outbox`` (a queue; None ends the stream)."""
    channel = grpc.insecure_channel(os.environ["TALON_ADDRESS"])
    play = channel.stream_stream("/talon.v1.BotSession/Play",
                                 request_serializer=bot_pb2.BotMessage.SerializeToString,
                                 response_deserializer=bot_pb2.RefereeMessage.FromString)
    return play(iter(outbox.get, None), timeout=timeout)


def hello(token):
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, bot_name=NAME))


def answer(request_id, action):
    return bot_pb2.BotMessage(answer=bot_pb2.Answer(request_id=request_id, action=action))


def first_legal(request):
    legal = request.legal
    if legal.crazy_eights:
        return game_pb2.Action(crazy_eights=legal.crazy_eights[0])
    action = game_pb2.Action()
    if legal.crazy_rummy:
        action.crazy_rummy.CopyFrom(legal.crazy_rummy[0])
    else:
        action.text = "draw"
    return action


def ending(stream):
    """Read the stream to its end; return how it ended, in words."""
    try:
        for message in stream:
            if message.WhichOneof("message") == "error":
                print(f"referee: {message.error.message}", flush=True)
        return "OK"
    except grpc.RpcError as error:
        return f"{error.code().name}: {error.details()}"


def finish():
    print("RESULT " + json.dumps(results), flush=True)
    sys.stdout.flush()


NAME = "flood"

FLOOD = 20000

outbox = queue.Queue()
outbox.put(hello(seat_token()))
for request_id in range(1, FLOOD + 1):
    outbox.put(answer(request_id, game_pb2.Action(text="draw")))
outbox.put(None)
how = ending(open_stream(outbox))
report("flood", how == "OK", f"sent up to {FLOOD} unasked answers; stream ended {how}")
finish()

"""Hostile bot: sends an 8 MiB Hello, then an 8 MiB answer; the referee must refuse both
(RESOURCE_EXHAUSTED or a protocol error) and go on refereeing the other seats."""

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


NAME = "huge_message"

HUGE = "x" * (8 * 1024 * 1024)

# 1. A Hello whose bot name alone is 8 MiB.
outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(token=seat_token(), bot_name=HUGE)))
outbox.put(None)
how = ending(open_stream(outbox))
report("huge hello", how == "OK", f"stream ended {how}")

# 2. A proper Hello, then an 8 MiB answer to the first request.
outbox = queue.Queue()
outbox.put(hello(seat_token()))
stream = open_stream(outbox)
how = "no request came"
try:
    for message in stream:
        if message.WhichOneof("message") == "request":
            outbox.put(answer(message.request.request_id, game_pb2.Action(text=HUGE)))
            outbox.put(None)
            break
    how = ending(stream)
except grpc.RpcError as error:
    how = f"{error.code().name}: {error.details()}"
report("huge answer", how == "OK", f"stream ended {how}")
finish()

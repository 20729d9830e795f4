"""Hostile bot: answers before it is asked, answers every request twice, and answers
requests that do not exist yet. The referee must count these as protocol errors (and hand
the seat to the fallback player after too many) without ever applying an action out of turn."""

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


NAME = "out_of_turn"

outbox = queue.Queue()
outbox.put(hello(seat_token()))
# Answer a request that was never sent, before the first request.
outbox.put(answer(999999, game_pb2.Action(text="draw")))
stream = open_stream(outbox)
answered = 0
how = "OK"
try:
    for message in stream:
        kind = message.WhichOneof("message")
        if kind == "error":
            print(f"referee: {message.error.message}", flush=True)
        elif kind == "request":
            request = message.request
            # Answer twice, then answer the request after it, which does not exist yet.
            outbox.put(answer(request.request_id, first_legal(request)))
            outbox.put(answer(request.request_id, first_legal(request)))
            outbox.put(answer(request.request_id + 1, first_legal(request)))
            answered += 1
        elif kind == "over":
            break
except grpc.RpcError as error:
    how = f"{error.code().name}: {error.details()}"
outbox.put(None)
report("out of turn", False, f"{answered} requests answered out of turn; stream ended {how}")
finish()

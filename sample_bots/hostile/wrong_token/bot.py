"""Hostile bot: tries to take seats that are not its own: a random token, an empty one, a
neighbour of its own, and its own token on a second stream while the first is connected.
Each must be refused (UNAUTHENTICATED / ALREADY_EXISTS); then it plays its seat properly."""

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


NAME = "wrong_token"


own = seat_token()


def attempt(name, token, expect_refusal=True):
    outbox = queue.Queue()
    outbox.put(hello(token))
    stream = open_stream(outbox, timeout=10.0)
    try:
        first = next(stream)
        outcome = f"accepted ({first.WhichOneof('message')})"
        accepted = True
    except grpc.RpcError as error:
        outcome = f"{error.code().name}: {error.details()}"
        accepted = False
    except StopIteration:
        outcome, accepted = "stream ended at once", False
    outbox.put(None)
    stream.cancel()
    report(name, accepted == expect_refusal, outcome)


flipped = own[:-1] + ("0" if own[-1:] != "0" else "1")
attempt("random token", "t" + os.urandom(16).hex())
attempt("empty token", "")
attempt("neighbour token (last character changed)", flipped)
attempt("token of another length", own + own)

# The real token, twice at once: the second stream must be refused (ALREADY_EXISTS).
outbox = queue.Queue()
outbox.put(hello(own))
stream = open_stream(outbox)
first = next(stream)
print(f"own token accepted: {first.WhichOneof('message')}", flush=True)
attempt("own token on a second stream", own)

# Then play the seat properly, so the match goes on.
for message in stream:
    kind = message.WhichOneof("message")
    if kind == "request":
        outbox.put(answer(message.request.request_id, first_legal(message.request)))
    elif kind == "over":
        break
outbox.put(None)
finish()

"""Hostile bot: plays two decisions, then exits with code 3 in the middle of the match. The
referee must record a crash and let the fallback player finish the seat."""

import json
import os
import queue
import sys

import grpc
from talon_sdk._proto.talon.v1 import bot_pb2, bot_pb2_grpc, game_pb2

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
    stub = bot_pb2_grpc.BotSessionStub(channel)
    return stub.Play(iter(outbox.get, None), timeout=timeout)


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


NAME = "exit_mid_match"

EXIT_AFTER = 2

outbox = queue.Queue()
outbox.put(hello(seat_token()))
answered = 0
for message in open_stream(outbox):
    if message.WhichOneof("message") == "request":
        if answered == EXIT_AFTER:
            print(f"exiting in the middle of the match after {answered} decisions", flush=True)
            os._exit(3)
        outbox.put(answer(message.request.request_id, first_legal(message.request)))
        answered += 1
print("the match ended before this bot could leave it", flush=True)

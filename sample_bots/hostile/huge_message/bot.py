"""Hostile bot: sends an 8 MiB Hello, then an 8 MiB answer; the referee must refuse both
(RESOURCE_EXHAUSTED or a protocol error) and go on refereeing the other seats."""

import json
import queue
import sys

import grpc
from talon_sdk._proto.talon.v1 import bot_pb2, game_pb2
from talon_sdk.wire import answer, hello, open_stream, read_to_end, seat_token

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def finish():
    print("RESULT " + json.dumps(results), flush=True)
    sys.stdout.flush()


NAME = "huge_message"

HUGE = "x" * (8 * 1024 * 1024)

# 1. A Hello whose bot name alone is 8 MiB.
outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(token=seat_token(), bot_name=HUGE)))
outbox.put(None)
how = read_to_end(open_stream(outbox))
report("huge hello", how == "OK", f"stream ended {how}")

# 2. A proper Hello, then an 8 MiB answer to the first request.
outbox = queue.Queue()
outbox.put(hello(seat_token(), NAME))
stream = open_stream(outbox)
how = "no request came"
try:
    for message in stream:
        if message.WhichOneof("message") == "request":
            outbox.put(answer(message.request.request_id, game_pb2.Action(text=HUGE)))
            outbox.put(None)
            break
    how = read_to_end(stream)
except grpc.RpcError as error:
    how = f"{error.code().name}: {error.details()}"
report("huge answer", how == "OK", f"stream ended {how}")
finish()

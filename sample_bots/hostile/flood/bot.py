"""Hostile bot: sends 20,000 answers nobody asked for, as fast as gRPC takes them; the
referee must end its stream (a protocol error) without slowing the other seats."""

import json
import queue
import sys

from talon_sdk._proto.talon.v1 import game_pb2
from talon_sdk.wire import answer, hello, open_stream, read_to_end, seat_token

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def finish():
    print("RESULT " + json.dumps(results), flush=True)
    sys.stdout.flush()


NAME = "flood"

FLOOD = 20000

outbox = queue.Queue()
outbox.put(hello(seat_token(), NAME))
for request_id in range(1, FLOOD + 1):
    outbox.put(answer(request_id, game_pb2.Action(text="draw")))
outbox.put(None)
how = read_to_end(open_stream(outbox))
report("flood", how == "OK", f"sent up to {FLOOD} unasked answers; stream ended {how}")
finish()

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
FIRST_ID = 10_000_000
"""No request of a match gets such an id: every answer is one nobody asked for. (Ids from 1 would
answer the real requests whenever they happen to be pending, depending on how soon the match
starts, and the first failure could then be an illegal draw instead of the flood.)"""

outbox = queue.Queue()
outbox.put(hello(seat_token(), NAME))
for request_id in range(FIRST_ID, FIRST_ID + FLOOD):
    outbox.put(answer(request_id, game_pb2.Action(text="draw")))
outbox.put(None)
how = read_to_end(open_stream(outbox))
report("flood", how == "OK", f"sent up to {FLOOD} unasked answers; stream ended {how}")
finish()

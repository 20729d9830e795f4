"""Hostile bot: answers before it is asked, answers every request twice, and answers
requests that do not exist yet. The referee must count these as protocol errors (and hand
the seat to the fallback player after too many) without ever applying an action out of turn."""

import json
import queue
import sys

import grpc
from talon_sdk._proto.talon.v1 import game_pb2
from talon_sdk.wire import answer, first_legal, hello, open_stream, seat_token

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def finish():
    print("RESULT " + json.dumps(results), flush=True)
    sys.stdout.flush()


NAME = "out_of_turn"

outbox = queue.Queue()
outbox.put(hello(seat_token(), NAME))
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

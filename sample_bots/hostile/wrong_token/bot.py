"""Hostile bot: tries to take seats that are not its own: a random token, an empty one, a
neighbour of its own, and its own token on a second stream while the first is connected.
Each must be refused (UNAUTHENTICATED / ALREADY_EXISTS); then it plays its seat properly."""

import json
import os
import queue
import sys

import grpc
from talon_sdk.wire import answer_until_over, hello, open_stream, seat_token

results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def finish():
    print("RESULT " + json.dumps(results), flush=True)
    sys.stdout.flush()


NAME = "wrong_token"


own = seat_token()


def attempt(name, token, expect_refusal=True):
    outbox = queue.Queue()
    outbox.put(hello(token, NAME))
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
outbox.put(hello(own, NAME))
stream = open_stream(outbox)
first = next(stream)
print(f"own token accepted: {first.WhichOneof('message')}", flush=True)
attempt("own token on a second stream", own)

# Then play the seat properly, so the match goes on.
answer_until_over(stream, outbox)
outbox.put(None)
finish()

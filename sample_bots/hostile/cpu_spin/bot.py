"""Hostile bot: spins 4 processes flat out, joins its match and never answers. The CPU quota
must hold it to its share (the other bots and the referee keep their cores) and the
referee's deadline must strike it, then hand the seat to the fallback player."""

import json
import multiprocessing
import os
import queue
import sys
import time

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


NAME = "cpu_spin"

SPINNERS = 4
SPIN_SECONDS = float(os.environ.get("CPU_SPIN_SECONDS", "600"))


def spin():
    end = time.monotonic() + SPIN_SECONDS
    while time.monotonic() < end:
        pass


def main():
    for _ in range(SPINNERS):
        multiprocessing.Process(target=spin, daemon=True).start()
    print(f"spinning {SPINNERS} processes for up to {SPIN_SECONDS:.0f} s", flush=True)
    outbox = queue.Queue()
    outbox.put(hello(seat_token()))
    how = ending(open_stream(outbox, timeout=SPIN_SECONDS))
    print(f"stream ended {how}", flush=True)
    spin()


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    main()

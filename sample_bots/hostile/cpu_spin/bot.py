"""Hostile bot: spins 4 processes flat out, joins its match through the SDK and never
answers (its decide() spins too). The CPU quota must hold it to its share, so the other bots
and the referee keep their cores, and the referee's deadline must strike it and then hand
the seat to the fallback player."""

import multiprocessing
import os
import time

from talon_sdk import Bot, run

SPINNERS = 4
SPIN_SECONDS = float(os.environ.get("CPU_SPIN_SECONDS", "600"))


def spin():
    end = time.monotonic() + SPIN_SECONDS
    while time.monotonic() < end:
        pass


class CpuSpin(Bot):
    name = "cpu_spin"

    def decide(self, view):
        spin()
        return view.legal_actions[0]


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")  # before any gRPC object exists
    for _ in range(SPINNERS):
        multiprocessing.Process(target=spin, daemon=True).start()
    print(f"spinning {SPINNERS} processes for up to {SPIN_SECONDS:.0f} s", flush=True)
    try:
        run(CpuSpin)
    except (SystemExit, Exception) as error:  # no referee, or it ended the session
        print(f"session over: {type(error).__name__}", flush=True)
    spin()  # without a referee (or after the match) keep spinning until stopped

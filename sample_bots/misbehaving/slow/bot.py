"""Misbehaving: from its third decision on, sleeps past the deadline plus the time bank."""

import time

from talon_sdk import Bot, run


class SlowBot(Bot):
    name = "slow"

    def __init__(self):
        self.count = 0

    def decide(self, view):
        self.count += 1
        if self.count > 2:
            d = view.decision
            time.sleep((d.deadline_ms + d.time_bank_ms) / 1000 + 0.1)
        return view.legal_actions[0]


if __name__ == "__main__":
    run(SlowBot)

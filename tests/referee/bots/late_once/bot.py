"""Test bot: answers its third request too late (past deadline + bank), all others at once.

It proves a late answer does not kill the stream: the referee drops it and keeps asking.
"""

import time

from talon_sdk import Bot, run


class LateOnce(Bot):
    name = "late_once"

    def __init__(self):
        self.count = 0

    def decide(self, view):
        self.count += 1
        if self.count == 3:
            d = view.decision
            time.sleep((d.deadline_ms + d.time_bank_ms) / 1000 + 0.05)
        return view.legal_actions[0]


if __name__ == "__main__":
    run(LateOnce)

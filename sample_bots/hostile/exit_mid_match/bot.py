"""Hostile bot: plays two decisions through the SDK, then exits with code 3 in the middle of
the match. The referee must record a crash and let the fallback player finish the seat."""

import os

from talon_sdk import Bot, run

EXIT_AFTER = 2


class ExitMidMatch(Bot):
    name = "exit_mid_match"

    def __init__(self):
        self.decisions = 0

    def decide(self, view):
        if self.decisions == EXIT_AFTER:
            print(f"exiting in the middle of the match after {self.decisions} decisions",
                  flush=True)
            os._exit(3)
        self.decisions += 1
        return view.legal_actions[0]


if __name__ == "__main__":
    run(ExitMidMatch)

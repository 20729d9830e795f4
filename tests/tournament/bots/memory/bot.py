"""A test bot that remembers every deal it has played and crashes if one comes back.

A warm instance that played two matches of one deal group (one deal, the seats rotated) would
know the other seats' hands the second time; the runner must never let that happen
(``referee.tournament.pool``). Match ids are ``t<table>-g<group>-r<rotation>``.
"""

import os

from talon_sdk import Bot, run

SEEN = set()  # module level: it outlives the matches of a warm instance


class Memory(Bot):
    def on_start(self, welcome):
        deal = welcome.match_id.rsplit("-r", 1)[0]
        if deal in SEEN:
            raise RuntimeError(f"deal {deal} came back to the same instance (pid {os.getpid()})")
        SEEN.add(deal)

    def decide(self, view):
        return view.legal_actions[0]


if __name__ == "__main__":
    run(Memory)

"""Misbehaving: crashes (an exception in decide ends the process) at its third decision."""

from talon_sdk import Bot, run


class CrashBot(Bot):
    name = "crash"

    def __init__(self):
        self.count = 0

    def decide(self, view):
        self.count += 1
        if self.count > 2:
            raise RuntimeError("crash bot: crashing on purpose mid-match")
        return view.legal_actions[0]


if __name__ == "__main__":
    run(CrashBot)

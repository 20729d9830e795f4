"""Misbehaving: at its third decision sends an action text of 200 kB (over the message limit)."""

from talon_sdk import Bot, run


class OversizeBot(Bot):
    name = "oversize"

    def __init__(self):
        self.count = 0

    def decide(self, view):
        self.count += 1
        if self.count > 2:
            return "draw" + " " * 200_000
        return view.legal_actions[0]


if __name__ == "__main__":
    run(OversizeBot)

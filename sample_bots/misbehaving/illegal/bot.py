"""Misbehaving: from its third decision on, plays a card it does not hold."""

from talon_sdk import Bot, EightsAction, run


class IllegalBot(Bot):
    name = "illegal"

    def __init__(self):
        self.count = 0

    def decide(self, view):
        self.count += 1
        if self.count <= 2:
            return view.legal_actions[0]
        missing = next(c for c in range(52) if c not in view.hand)
        if view.game == "crazy-eights":
            return EightsAction.play(missing)
        from talon_sdk.cards import card_name

        return f"discard {card_name(missing)}"


if __name__ == "__main__":
    run(IllegalBot)

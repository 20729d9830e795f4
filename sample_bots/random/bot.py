"""The random bot: picks uniformly among the legal actions. A baseline, and the benchmark's bot."""

import os
import random

from talon_sdk import Bot, run


class RandomBot(Bot):
    name = "random"

    def __init__(self) -> None:
        seed = os.environ.get("TALON_BOT_SEED")
        self.rng = random.Random(int(seed) if seed else None)

    def decide(self, view):
        return self.rng.choice(view.legal_actions)


if __name__ == "__main__":
    run(RandomBot)

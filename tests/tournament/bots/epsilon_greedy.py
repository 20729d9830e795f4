"""A test bot of known strength: random with probability EPSILON, else greedy (the tests write
it out as strong, medium and weak with EPSILON 0, 0.5 and 1: see known_bots.py).

Its randomness is seeded from the match id and seat, so it plays every match the same way
whatever else it played before (what makes a tournament replay exactly).
"""

import random

from talon_sdk import Bot, run
from talon_sdk.cards import card_rank, card_suit

EPSILON = 0.0


class EpsilonGreedy(Bot):
    def on_start(self, welcome):
        self.rng = random.Random(f"{welcome.match_id}/{welcome.seat}")

    def decide(self, view):
        legal = view.legal_actions
        if self.rng.random() < EPSILON:
            return self.rng.choice(legal)
        counts = [0, 0, 0, 0]
        for card in view.hand:
            counts[card_suit(card)] += 1
        plays = [a for a in legal if a.is_play]
        if not plays:
            names = [a for a in legal if a.kind == "name"]
            return max(names, key=lambda a: counts[a - 4]) if names else legal[0]

        def score(action):
            rank = card_rank(action.card)
            named = action.named_suit
            if rank == 8:
                return (action.announce, 0, named is not None and counts[named] == max(counts), 0)
            return (action.announce, 1, 10 if rank >= 10 else rank, counts[card_suit(action.card)])

        return max(plays, key=score)


if __name__ == "__main__":
    run(EpsilonGreedy)

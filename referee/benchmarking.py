"""In-process engine throughput: random legal playouts, timed (the clock lives here, not in the
pure rules engines)."""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

from referee.games import RuleSet, new_match


@dataclasses.dataclass(frozen=True)
class EngineBench:
    """Throughput of random legal play: ``games`` whole matches in ``seconds``."""

    game: str
    preset: str
    overrides: dict[str, Any]
    players: int
    games: int
    decisions: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.preset,
            "overrides": self.overrides,
            "players": self.players,
            "games": self.games,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "games_per_s": round(self.games / self.seconds, 1),
            "decisions_per_s": round(self.decisions / self.seconds, 1),
            "decisions_per_game": round(self.decisions / max(self.games, 1), 2),
        }


def engine_throughput(game: str, rules: RuleSet, players: int, seconds: float, seed: int = 0) -> EngineBench:
    """Play seeded random legal matches for about ``seconds``; count games and decisions."""
    chooser = random.Random(seed)
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = new_match(game, rules, players, seed + games)
        legal_actions, apply = state.legal_actions, state.apply
        rand = chooser.random
        while not state.is_over:
            legal = legal_actions()
            apply(legal[int(rand() * len(legal))])
            decisions += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return EngineBench(game, rules.preset, rules.overrides(), players, games, decisions, elapsed)

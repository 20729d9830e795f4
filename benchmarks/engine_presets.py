#!/usr/bin/env python3
"""Engine throughput for every preset of every game at 2 and 4 players (random legal play,
in-process). Prints one JSON object: a list of ``talon bench engine`` results.

Usage: python benchmarks/engine_presets.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import json

from referee.benchmarking import engine_throughput
from referee.games import GAMES, RulesError, make_rules, rules_class

# Crazy Rummy's preset seats 3 to 6; heads-up needs its `players` switch (spec section 1)
HEADS_UP = {"crazy-rummy": {"players": "2-6"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    results = []
    for game in GAMES:
        for preset in rules_class(game).PRESETS:
            for players in (2, 4):
                rules = make_rules(game, preset, HEADS_UP.get(game) if players == 2 else None)
                try:
                    rules.check_players(players)
                except RulesError:
                    continue
                results.append(engine_throughput(game, rules, players, args.seconds).to_json())
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()

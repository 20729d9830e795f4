#!/usr/bin/env python3
"""Talon's Crazy Eights engine against DeepMind OpenSpiel's C++ ``crazy_eights`` driven from
Python, side by side in one run, on rules set to match. Prints one JSON object.

OpenSpiel: random legal playouts with ``pyspiel``, chance nodes sampled in Python by their
probabilities (as in ../shared/notes/openspiel.md). Talon: the same random legal play on the
``pagat`` preset with OpenSpiel's settings: up to 5 draws a turn (drawing allowed while able
to play), no reshuffle (pass when the stock is empty), a wild 8 upcard turned back in, no
last-card rule, one hand per game. Both run in alternating rounds so load on this shared
machine hits both alike; ``ratio`` is Talon's decisions/s over OpenSpiel's.

Usage: python benchmarks/engine_vs_openspiel.py [--players 2] [--seconds 2] [--rounds 3]
(needs ``pip install open-spiel``, the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import pyspiel

from referee.benchmarking import engine_throughput
from referee.games import make_rules

MATCHED = {
    "draw_mode": "up_to_n", "draw_limit": 5, "may_draw_when_able_to_play": True,
    "stock_empty": "pass", "upcard_eight": "bury_and_redraw", "last_card_penalty": 0,
    "match_end": "hands", "match_hands": 1,
}


def openspiel_throughput(players: int, seconds: float, seed: int) -> dict[str, float]:
    game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = random.Random(seed)
    games = decisions = steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions, probs = zip(*outcomes)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                decisions += 1
            steps += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return {"games": games, "decisions": decisions, "steps": steps, "seconds": elapsed,
            "games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed,
            "decisions_per_game": decisions / games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=2.0, help="per round and side")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rules = make_rules("crazy-eights", "pagat", MATCHED)
    talon_runs, spiel_runs = [], []
    for r in range(args.rounds):
        spiel_runs.append(openspiel_throughput(args.players, args.seconds, r))
        talon_runs.append(engine_throughput("crazy-eights", rules, args.players, args.seconds, r).to_json())
    talon = statistics.median(t["decisions_per_s"] for t in talon_runs)
    spiel = statistics.median(s["decisions_per_s"] for s in spiel_runs)
    print(json.dumps({
        "players": args.players,
        "rounds": args.rounds,
        "seconds_per_round": args.seconds,
        "talon": {
            "rules": rules.to_json(),
            "decisions_per_s": round(talon),
            "games_per_s": round(statistics.median(t["games_per_s"] for t in talon_runs), 1),
            "decisions_per_game": round(statistics.median(t["decisions_per_game"] for t in talon_runs), 1),
        },
        "openspiel": {
            "params": {"players": args.players, "max_draw_cards": 5, "reshuffle": False},
            "decisions_per_s": round(spiel),
            "games_per_s": round(statistics.median(s["games_per_s"] for s in spiel_runs), 1),
            "decisions_per_game": round(statistics.median(s["decisions_per_game"] for s in spiel_runs), 1),
        },
        "ratio": round(talon / spiel, 3),
    }))


if __name__ == "__main__":
    main()

"""How many games each design needs to tell two close bots apart: deal groups vs independent deals.

Two in-process Crazy Eights policies of slightly different strength, A (greedy) and B (greedy
with probability ``p``, else a random legal action), plus random fillers when ``--players`` > 2,
play under two designs:

* **independent**: every game a fresh deal and a random seating;
* **duplicate**: deal groups, one deal played once per cyclic seat rotation (what
  ``talon tournament`` plays).

For each game the score is d = win(A) - win(B) (a shared first is split), and also the
place-based d = (place(B) - place(A)) / (k - 1). With Δ the true mean of d, the games needed
for a z-sigma separation are ``n = z² σ² / Δ²`` per design, where σ² is the variance of one
independent game, or k times the variance of one group's mean for the duplicate design (a group
is k games). Both designs estimate the same Δ, so Δ is pooled; the ratio
``n_duplicate / n_independent`` is what the design saves, with a bootstrap 95 % interval.

Run: ``.venv/bin/python benchmarks/duplicate_vs_independent.py --games 20000`` (prints JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.cards import card_rank, card_suit  # noqa: E402
from referee.games import MatchState, make_rules, new_match  # noqa: E402
from referee.games.crazy_eights.actions import is_play, play_parts  # noqa: E402
from referee.tournament.schedule import derive_seed  # noqa: E402

Policy = Callable[[MatchState[Any], np.random.Generator], int]


def random_policy(state: MatchState[Any], rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    return int(legal[int(rng.integers(len(legal)))])


def greedy_policy(state: MatchState[Any], rng: np.random.Generator) -> int:
    """Shed the highest non-wild card (majority suit first); a wild names the majority suit."""
    legal = state.legal_actions()
    plays = [a for a in legal if is_play(a)]
    hand = state.view(state.current_player)["hand"]
    counts = [sum(1 for c in hand if card_suit(c) == s) for s in range(4)]
    if not plays:
        names = [a for a in legal if 4 <= a < 8]
        return max(names, key=lambda a: counts[a - 4]) if names else int(legal[0])

    def score(action: int) -> tuple[int, int, int, int]:
        card, named, announce = play_parts(action)
        rank = card_rank(card)
        wild = rank == 8
        points = 10 if rank >= 10 else rank
        names_majority = named < 4 and counts[named] == max(counts)
        return (int(announce), int(not wild), int(names_majority) if wild else points, counts[card_suit(card)])

    return int(max(plays, key=score))


def mixture(p: float) -> Policy:
    def policy(state: MatchState[Any], rng: np.random.Generator) -> int:
        return greedy_policy(state, rng) if rng.random() < p else random_policy(state, rng)

    return policy


def play(rules: Any, policies: Sequence[Policy], seed: int, rng: np.random.Generator) -> list[int]:
    state = new_match("crazy-eights", rules, len(policies), seed)
    while not state.is_over:
        state.apply(policies[state.current_player](state, rng))
    return list(state.standings())


def differences(places: Sequence[int], a: int, b: int) -> tuple[float, float]:
    firsts = sum(1 for p in places if p == 1)
    win = (float(places[a] == 1) - float(places[b] == 1)) / firsts
    return win, (places[b] - places[a]) / (len(places) - 1)


def run(games: int, players: int, p: float, preset: str, seed: int) -> dict[str, Any]:
    rules = make_rules("crazy-eights", preset, {"match_end": "hands", "match_hands": 1})
    lineup: list[Policy] = [greedy_policy, mixture(p)] + [random_policy] * (players - 2)
    rng = np.random.default_rng(seed)
    independent = np.empty((games, 2))
    for g in range(games):
        order = rng.permutation(players)  # order[seat] = which bot sits there
        places = play(rules, [lineup[i] for i in order], derive_seed(seed, "independent", g), rng)
        seat_of = {int(bot): seat for seat, bot in enumerate(order)}
        independent[g] = differences(places, seat_of[0], seat_of[1])
    groups = games // players
    duplicate = np.empty((groups, 2))
    for g in range(groups):
        deal = derive_seed(seed, "duplicate", g)
        total = np.zeros(2)
        for r in range(players):
            order = [(i + r) % players for i in range(players)]  # rotation r of bots 0..k-1
            places = play(rules, [lineup[i] for i in order], deal, rng)
            total += differences(places, order.index(0), order.index(1))
        duplicate[g] = total / players
    return {
        metric: _compare(independent[:, i], duplicate[:, i], players, rng)
        for i, metric in enumerate(("win", "place"))
    }


def _compare(ind: np.ndarray, dup: np.ndarray, k: int, rng: np.random.Generator, z: float = 1.96) -> dict[str, Any]:
    def needed(ind: np.ndarray, dup: np.ndarray) -> tuple[float, float, float]:
        delta = (ind.mean() * len(ind) + dup.mean() * len(dup) * k) / (len(ind) + len(dup) * k)
        n_ind = z**2 * ind.var(ddof=1) / delta**2
        n_dup = z**2 * k * dup.var(ddof=1) / delta**2
        return float(delta), float(n_ind), float(n_dup)

    delta, n_ind, n_dup = needed(ind, dup)
    ratios = []
    for _ in range(1000):
        i = ind[rng.integers(len(ind), size=len(ind))]
        d = dup[rng.integers(len(dup), size=len(dup))]
        ratios.append(k * d.var(ddof=1) / i.var(ddof=1))  # delta cancels in the ratio
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    return {
        "mean_difference": round(delta, 4),
        "var_per_game_independent": round(float(ind.var(ddof=1)), 4),
        "var_per_game_duplicate": round(float(k * dup.var(ddof=1)), 4),
        "games_needed_independent": round(n_ind),
        "games_needed_duplicate": round(n_dup),
        "ratio": round(n_dup / n_ind, 3),
        "ratio_95ci": [round(float(lo), 3), round(float(hi), 3)],
        "fewer_games_pct": round(100 * (1 - n_dup / n_ind), 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per design")
    parser.add_argument("--players", type=int, default=2, choices=range(2, 8), help="table size k")
    parser.add_argument("--p", type=float, default=0.9, help="B plays greedy with this probability")
    parser.add_argument("--preset", default="classic", help="Crazy Eights preset (one hand per game)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = run(args.games, args.players, args.p, args.preset, args.seed)
    out = {
        "benchmark": "duplicate_vs_independent",
        "game": "crazy-eights", "preset": args.preset, "hands_per_game": 1,
        "players": args.players, "bots": f"greedy vs {args.p:g}*greedy+{1 - args.p:g}*random"
        + (f" + {args.players - 2} random" if args.players > 2 else ""),
        "games_per_design": args.games, "z": 1.96, "seed": args.seed,
        "seconds": round(time.perf_counter() - start, 1),
        **result,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

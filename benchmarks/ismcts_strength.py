"""How strong is the ismcts reference bot? Duplicate deal groups against greedy and random.

Each *deal group* is one match seed played once per seat rotation, with the bot under test in
every seat in turn and the same cards each time, so the luck of the deal cancels within a group.
Matches run in-process with the rules engine for speed, but every seat still gets exactly what
the referee would send: views and events are encoded with the referee's own wire codec and
decoded with the SDK (``make_view``), and answers go back through the SDK's encoder and the
referee's decoder. Bots are the sample bots themselves (``sample_bots/*/bot.py``).

Printed (JSON): per case, the bot's win share (a win shared by k seats counts 1/k) and its mean
final match score, each with a 95% interval over deal groups (t interval on group means), the
opponents' mean score and the per-group score difference with its interval, and how long the
bot's decisions took (mean, p99, max, and the share over 110% of the budget).

Run (about 13 minutes on two cores, then about 5 for the curve)::

    .venv/bin/python benchmarks/ismcts_strength.py --workers 2 --referee docker > out/ismcts_strength.json
    .venv/bin/python benchmarks/ismcts_strength.py --workers 2 --curve > out/ismcts_curve.json

``--quick`` runs a small smoke version. ``--cases`` picks cases by name; ``--curve`` plays the
strength-versus-time curve instead (heads-up ``classic`` against greedy at 5, 20 and 80 ms);
``--referee docker`` (or ``process``) adds five matches through the real referee service and
sandbox, with the referee's own answer times.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots" / "ismcts"))

from referee.games import make_rules, new_match  # noqa: E402
from referee.match_wire import GameCodec  # noqa: E402
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb  # noqa: E402
from talon_sdk._proto.talon.v1 import game_pb2 as gpb  # noqa: E402
from talon_sdk.client import encode_action  # noqa: E402
from talon_sdk.views import make_view  # noqa: E402
from talon_ismcts import Settings  # noqa: E402

ALGORITHM = ["paired"]
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
       15: 2.13, 20: 2.09, 30: 2.04, 40: 2.02, 60: 2.00, 120: 1.98}


def load_bot_module(name: str) -> ModuleType:
    """``sample_bots/<name>/bot.py`` as a module of its own name."""
    path = ROOT / "sample_bots" / name / "bot.py"
    spec = importlib.util.spec_from_file_location(f"talon_sample_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_bot(kind: str, seed: int, ms: float) -> Any:
    """A fresh bot of ``kind`` (ismcts, greedy or random), seeded."""
    if kind == "ismcts":
        return load_bot_module("ismcts").IsmctsBot(Settings(ms=ms, seed=seed, algorithm=ALGORITHM[0]))
    if kind == "greedy":
        return load_bot_module("greedy").GreedyBot()
    bot = load_bot_module("random").RandomBot()
    bot.rng.seed(seed)
    return bot


@dataclasses.dataclass
class MatchRecord:
    """One finished match, from the bots' side."""

    places: list[int]
    scores: list[int]
    think: list[list[float]]
    """Wall seconds of each decide() call, per seat."""
    cpu: list[list[float]]
    """CPU seconds (this thread) of each decide() call, per seat."""
    budgets: list[list[float]]
    """The ismcts bot's budget (seconds) per decision, per seat (empty for other bots)."""


def play_match(game: str, preset: str, bots: Sequence[Any], seed: int, decision_ms: int = 1000,
               bank_ms: int = 60_000, overrides: dict[str, Any] | None = None) -> MatchRecord:
    """One match in-process, every decision through the referee's codec and the SDK's views."""
    rules = make_rules(game, preset, overrides)
    n = len(bots)
    state = new_match(game, rules, n, seed)
    codec = GameCodec(game)
    rules_msg = gpb.RuleSet(game=game, preset=preset, overrides_json=json.dumps(rules.overrides()))
    for seat, bot in enumerate(bots):
        bot.on_start(bpb.Welcome(match_id=f"bench-{seed}", seat=seat, num_players=n, rules=rules_msg,
                                 clocks=bpb.Clocks(decision_ms=decision_ms, bank_ms=bank_ms, max_strikes=3)))
    encoded: list[gpb.Event] = []
    sent = [0] * n
    think: list[list[float]] = [[] for _ in range(n)]
    cpu: list[list[float]] = [[] for _ in range(n)]
    budgets: list[list[float]] = [[] for _ in range(n)]
    decisions = 0
    while not state.is_over:
        seat = state.current_player
        for ev in state.events_since(len(encoded)):
            data = json.dumps(dict(ev.data), separators=(",", ":")) if ev.data else "{}"
            encoded.append(gpb.Event(index=len(encoded), kind=ev.kind, seat=ev.seat, data_json=data))
        events, sent[seat] = encoded[sent[seat]:], len(encoded)
        complete = game == "crazy-eights" or getattr(state, "phase", "") != "table"
        message = codec.request(decisions + 1, decisions, decision_ms, bank_ms, state.view(seat),
                                state.legal_actions(), complete, events)
        view = make_view(message.request)
        bot = bots[seat]
        start, start_cpu = time.perf_counter(), time.thread_time()
        answer = bot.decide(view)
        think[seat].append(time.perf_counter() - start)
        cpu[seat].append(time.thread_time() - start_cpu)
        settings = getattr(bot, "settings", None)
        if settings is not None:
            budgets[seat].append(settings.ms / 1000)
        state.apply(codec.decode(encode_action(answer), state))
        decisions += 1
    return MatchRecord(list(state.standings()), list(state.scores), think, cpu, budgets)


# --- statistics ------------------------------------------------------------------------------


def interval(values: Sequence[float]) -> dict[str, float]:
    """Mean and 95% t interval of ``values`` (one value per deal group)."""
    k = len(values)
    mean = statistics.fmean(values)
    if k < 2:
        return {"mean": mean, "low": math.nan, "high": math.nan, "n": k}
    t = next((v for df, v in sorted(T95.items()) if df >= k - 1), 1.96)
    half = t * statistics.stdev(values) / math.sqrt(k)
    return {"mean": round(mean, 4), "low": round(mean - half, 4), "high": round(mean + half, 4), "n": k}


def _win_share(places: Sequence[int], seat: int) -> float:
    if places[seat] != 1:
        return 0.0
    return 1.0 / places.count(1)


def lower_is_better(game: str, preset: str) -> bool:
    if game == "crazy-rummy":
        return True
    rules = make_rules(game, preset)
    return bool(rules.variant == "countdown" or rules.scoring_mode == "penalty")  # type: ignore[attr-defined]


# --- cases -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """One line of the report: the bot under test against ``opponent`` bots on ``players`` seats."""

    name: str
    game: str
    preset: str
    players: int
    opponent: str
    groups: int
    ms: float = 20.0


def _group_job(args: tuple[Case, int]) -> dict[str, Any]:
    """Play one deal group of ``case`` (the bot in each seat once); per-group aggregates."""
    case, group = args
    seed = 1_000_003 * (group + 1) + case.players
    wins, mine, theirs, think, cpu, budget = [], [], [], [], [], []
    for hero in range(case.players):
        bots = [make_bot("ismcts" if s == hero else case.opponent, seed * 31 + s, case.ms)
                for s in range(case.players)]
        record = play_match(case.game, case.preset, bots, seed)
        wins.append(_win_share(record.places, hero))
        mine.append(record.scores[hero])
        theirs.append(statistics.fmean(record.scores[s] for s in range(case.players) if s != hero))
        think.extend(record.think[hero])
        cpu.extend(record.cpu[hero])
        budget.extend(record.budgets[hero])
    return {"win": statistics.fmean(wins), "score": statistics.fmean(mine),
            "opponents": statistics.fmean(theirs), "think": think, "cpu": cpu, "budget": budget}


def run_case(case: Case, workers: int) -> dict[str, Any]:
    """Every deal group of ``case``; the report line."""
    jobs = [(case, g) for g in range(case.groups)]
    started = time.perf_counter()
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            groups = pool.map(_group_job, jobs, chunksize=1)
    else:
        groups = [_group_job(job) for job in jobs]
    think = sorted(t for g in groups for t in g["think"])
    budget = [b for g in groups for b in g["budget"]]
    over = sum(1 for g in groups for t, b in zip(g["think"], g["budget"]) if t > 1.1 * b)
    over_cpu = sum(1 for g in groups for t, b in zip(g["cpu"], g["budget"]) if t > 1.1 * b)
    cpu = sorted(t for g in groups for t in g["cpu"])
    sign = -1.0 if lower_is_better(case.game, case.preset) else 1.0
    return {
        "case": case.name, "game": case.game, "preset": case.preset, "players": case.players,
        "opponent": case.opponent, "ms": case.ms, "groups": case.groups, "matches": case.groups * case.players,
        "fair_share": round(1 / case.players, 4),
        "win_share": interval([g["win"] for g in groups]),
        "score": interval([g["score"] for g in groups]),
        "opponent_score": interval([g["opponents"] for g in groups]),
        "score_edge": interval([sign * (g["score"] - g["opponents"]) for g in groups]),
        "decisions": len(think),
        "think_ms": {"mean": round(1000 * statistics.fmean(think), 2) if think else 0.0,
                     "p99": round(1000 * think[int(0.99 * (len(think) - 1))], 2) if think else 0.0,
                     "max": round(1000 * think[-1], 2) if think else 0.0,
                     "over_110pct": over, "cpu_max": round(1000 * cpu[-1], 2) if cpu else 0.0,
                     "cpu_over_110pct": over_cpu, "budget_ms": round(1000 * budget[0], 2) if budget else None},
        "seconds": round(time.perf_counter() - started, 1),
    }


REFEREE_MATCHES = [("crazy-eights", "classic", 2), ("crazy-eights", "house", 2), ("crazy-eights", "classic", 4),
                   ("crazy-eights", "house", 4), ("crazy-rummy", "standard", 3)]


def referee_run(sandbox: str, rounds: int) -> dict[str, Any]:
    """Matches through the real referee service and sandbox: the bot in seat 0, greedy elsewhere.

    Reports, from the referee's own records, every answer time of the ismcts seat (the referee
    measures from sending the request to receiving the answer, so transport is included),
    strikes and failures.
    """
    import asyncio

    from referee.cli_play import play_match as referee_match
    from referee.match_types import Clocks, MatchConfig

    bots = {name: ROOT / "sample_bots" / name for name in ("ismcts", "greedy")}
    lines = []
    for r in range(rounds):
        for game, preset, players in REFEREE_MATCHES:
            config = MatchConfig(game, preset, 900 + r, clocks=Clocks(decision_ms=1000, bank_ms=10_000))
            seats = [bots["ismcts"]] + [bots["greedy"]] * (players - 1)
            result = asyncio.run(referee_match(config, seats, sandbox))
            ms = sorted(a["ms"] for a in result.replay["actions"] if a["seat"] == 0 and a["by"] == "bot") or [math.nan]
            hero = result.seats[0]
            lines.append({
                "game": game, "preset": preset, "players": players, "seed": 900 + r, "place": hero.place,
                "decisions": hero.decisions, "strikes": hero.strikes, "taken_over": hero.taken_over,
                "failures": [f.message[:300] for f in result.failures],
                "answer_ms_mean": round(statistics.fmean(ms), 2),
                "answer_ms_p99": round(ms[int(0.99 * (len(ms) - 1))], 2), "answer_ms_max": round(ms[-1], 2),
                "over_22ms": sum(1 for m in ms if m > 22.0),
            })
            print(json.dumps(lines[-1]), file=sys.stderr, flush=True)
    return {"sandbox": sandbox, "decision_ms": 1000, "bot_budget_ms": 20, "matches": lines}


def default_cases(scale: float) -> list[Case]:
    def g(n: int) -> int:
        return max(2, int(n * scale))

    return [
        Case("classic-2p-greedy", "crazy-eights", "classic", 2, "greedy", g(80)),
        Case("house-2p-greedy", "crazy-eights", "house", 2, "greedy", g(80)),
        Case("classic-4p-greedy", "crazy-eights", "classic", 4, "greedy", g(50)),
        Case("house-4p-greedy", "crazy-eights", "house", 4, "greedy", g(60)),
        Case("rummy-3p-greedy", "crazy-rummy", "standard", 3, "greedy", g(20)),
        Case("classic-2p-random", "crazy-eights", "classic", 2, "random", g(20)),
        Case("house-2p-random", "crazy-eights", "house", 2, "random", g(20)),
        Case("classic-4p-random", "crazy-eights", "classic", 4, "random", g(10)),
        Case("house-4p-random", "crazy-eights", "house", 4, "random", g(10)),
        Case("rummy-3p-random", "crazy-rummy", "standard", 3, "random", g(6)),
    ]


def curve_cases(scale: float) -> list[Case]:
    return [Case(f"{preset}-2p-greedy-{ms:g}ms", "crazy-eights", preset, 2, "greedy", max(2, int(25 * scale)), ms)
            for preset in ("classic",) for ms in (5.0, 20.0, 80.0)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1, help="processes playing deal groups at once")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every case's deal groups")
    parser.add_argument("--quick", action="store_true", help="a small smoke run (scale 0.05)")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--curve", action="store_true",
                        help="instead: the strength-versus-time curve (heads-up classic against greedy)")
    parser.add_argument("--ms", type=float, default=20.0, help="the bot's time per decision")
    parser.add_argument("--algorithm", default="paired", choices=("paired", "ismcts"))
    parser.add_argument("--referee", choices=("docker", "process"), default=None,
                        help="also play a few matches through the real referee in this sandbox")
    parser.add_argument("--referee-rounds", type=int, default=1, help="rounds of the referee matches")
    args = parser.parse_args(argv)
    ALGORITHM[0] = args.algorithm
    scale = 0.05 if args.quick else args.scale
    cases = [] if args.curve else [dataclasses.replace(c, ms=args.ms) for c in default_cases(scale)]
    if args.curve:
        cases = curve_cases(scale)
    if args.cases:
        wanted = set(args.cases.split(","))
        cases = [c for c in cases if c.name in wanted]
    report: dict[str, Any] = {"benchmark": "ismcts_strength", "workers": args.workers, "cases": []}
    for case in cases:
        line = run_case(case, args.workers)
        report["cases"].append(line)
        print(json.dumps(line), file=sys.stderr, flush=True)
    if args.referee:
        report["referee"] = referee_run(args.referee, args.referee_rounds)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()


__all__: list[str] = ["Case", "MatchRecord", "interval", "load_bot_module", "make_bot", "main", "play_match",
                      "run_case"]

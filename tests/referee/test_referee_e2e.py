"""End to end: real referee, real Unix socket, real bot processes, both games.

Each failure kind is provoked by a real misbehaving bot; the test checks it is caught, recorded
with its kind and decision, reported to the bot in words, and that the match still completes.
The module's last test checks the same server still serves matches.
"""

from __future__ import annotations

import json
import re

import pytest

from referee.match_types import Clocks, FailureKind
from referee.replay import verify_replay
from tests_referee_helpers import GAMES_UNDER_TEST, bot_logs, check_result

FAST = Clocks(decision_ms=150, bank_ms=1000, max_strikes=3)
"""Short deadlines, with a bank so that a well-behaved bot survives a load spike."""


@pytest.mark.parametrize("game,preset,players", GAMES_UNDER_TEST)
def test_full_match_completes_and_replays(arena, game, preset, players):
    seats = ["random", "greedy", "random", "greedy"][:players]
    result = arena.play(game, preset, 11, seats)
    check_result(result, players)
    assert not result.failures
    assert sorted(s.place for s in result.seats)[0] == 1
    assert all(s.decisions > 0 and not s.taken_over for s in result.seats)
    assert verify_replay(result.replay) == []


def test_greedy_beats_random_more_often_than_not(arena):
    wins = 0
    for seed in range(6):
        result = arena.play("crazy-eights", "classic", seed, ["greedy", "random"])
        wins += result.seats[0].place == 1
    assert wins >= 3


@pytest.mark.parametrize("name,kind,words", [
    ("slow", FailureKind.TIMEOUT, "timeout: no answer to request"),
    ("illegal", FailureKind.ILLEGAL, "illegal: you hold no"),
    ("crash", FailureKind.CRASHED, "crashed: the bot's process exited"),
    ("garbage", FailureKind.PROTOCOL_ERROR, "protocol: a message from the bot is not a BotMessage"),
    ("flood", FailureKind.PROTOCOL_ERROR, "protocol: answer names request"),
    ("oversize", FailureKind.CRASHED, "refused a message over the 65536-byte limit"),
])
def test_each_failure_kind_is_caught_reported_and_recorded(arena, name, kind, words):
    result = arena.play("crazy-eights", "classic", 5, ["random", name], clocks=FAST)
    check_result(result, 2)
    failures = [f for f in result.failures if f.seat == 1]
    assert failures, result.failures
    assert failures[-1].kind is kind or any(f.kind is kind for f in failures)
    assert any(words in f.message for f in failures), [f.message for f in failures]
    assert all(f.decision >= 2 for f in failures)  # each bot misbehaves from its third decision
    assert all(f.seat == 1 for f in result.failures)
    if name == "flood":  # the flood ends the seat at once: no decision waits out its clock
        assert [f.kind for f in failures] == [FailureKind.PROTOCOL_ERROR] * len(failures), failures
    loser, winner = result.seats[1], result.seats[0]
    assert loser.taken_over and loser.place == 2 and winner.place == 1
    assert verify_replay(result.replay) == []
    logs = bot_logs(arena, name)
    if name in ("slow", "illegal"):  # bots that live to hear about it
        first = failures[0].message
        assert first[:40] in logs, logs[-2000:]
    if name == "flood":  # told, or cut off mid-flood: the referee ends its stream at once
        assert failures[0].message[:40] in logs or "the referee ended the stream" in logs, logs[-2000:]
    if name == "oversize":
        assert "RESOURCE_EXHAUSTED" in logs and "larger than max" in logs
    if name == "crash":  # the exception's own line, whole, for the operator; no guess about the stream
        crash = failures[-1]
        assert crash.output.endswith("| RuntimeError: crash bot: crashing on purpose mid-match"), crash
        assert "gRPC" not in crash.message and "\\n" not in crash.output
        assert "RuntimeError" not in json.dumps(result.replay)  # the bot's output reaches no seat


def test_a_late_answer_does_not_kill_the_stream(arena):
    result = arena.play("crazy-eights", "classic", 3, ["late_once", "random"], clocks=FAST)
    seat = result.seats[0]
    assert [f.kind for f in result.failures] == [FailureKind.TIMEOUT]
    assert seat.strikes == 1 and not seat.taken_over
    failed_at = result.failures[0].decision
    later = [a for a in result.replay["actions"][failed_at + 1:] if a["seat"] == 0]
    assert later and all(a["by"] == "bot" for a in later)


def test_the_time_bank_absorbs_slow_answers_then_runs_out(arena):
    clocks = Clocks(decision_ms=40, bank_ms=150, max_strikes=50)
    result = arena.play("crazy-eights", "classic", 3, ["slow", "random"], clocks=clocks)
    timeouts = [f for f in result.failures if f.kind is FailureKind.TIMEOUT and f.seat == 0]
    assert timeouts
    # the first slow decision could use the bank (40 ms + up to 150 ms) and timed out: the bank
    # is empty after, and every later limit is the bare 40 ms
    banks = [int(re.search(r"plus (\d+) ms of time bank", f.message).group(1)) for f in timeouts]
    assert 0 < banks[0] <= 150 and set(banks[1:]) == {0}, banks


def test_the_server_survived_and_still_serves(arena):
    result = arena.play("crazy-eights", "specials", 21, ["greedy", "random", "greedy"])
    check_result(result, 3)
    assert not result.failures
    assert arena.service.running_matches == 0


def test_many_matches_at_once_with_misbehaving_bots_among_them(arena):
    import asyncio

    from referee.match import BotSeat, run_match
    from referee.match_types import MatchConfig

    from referee_support import bot

    async def together():
        lineups = [["random", "greedy"], ["crash", "random"], ["greedy", "illegal", "random"],
                   ["slow", "greedy"], ["random", "random", "greedy", "random"]]
        return await asyncio.gather(*(
            run_match(MatchConfig("crazy-eights", "house", 40 + i, clocks=FAST if bad else Clocks()),
                      [BotSeat(bot(n)) for n in lineup], service=arena.service, sandbox=arena.sandbox)
            for i, (lineup, bad) in enumerate(zip(lineups, [False, True, True, True, False]))))

    results = arena.run(together())
    assert [bool(r.failures) for r in results] == [False, True, True, True, False], [r.failures for r in results]
    assert len({r.match_id for r in results}) == len(results)
    for result in results:
        check_result(result, len(result.seats))
        assert verify_replay(result.replay) == []

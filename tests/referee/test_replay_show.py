"""`talon replay show`, on replays of real matches (real referee, real bot processes): every
decision is listed with its failures and the result, and a seat's view lines are exactly what
the engine showed that seat, re-simulated here independently."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from referee.cards import cards_name
from referee.cli import main
from referee.games import make_rules, new_match

from referee_support import MISBEHAVING, SAMPLES

DECISION = re.compile(r"^\s*(\d+)  hand (\d+)\s+seat (\d+) ")


def _played(tmp_path, game, rules, bots, seed):
    replay = tmp_path / f"{game}-{seed}.json"
    seats = [arg for bot in bots for arg in ("--bot", str(bot))]
    out = CliRunner().invoke(main, ["play", "--game", game, "--rules", rules, *seats, "--seed", str(seed),
                                    "--sandbox", "process", "--replay", str(replay)])
    assert out.exit_code == 0, out.output
    return replay, json.loads(replay.read_text())


def _show(replay, *options):
    return CliRunner().invoke(main, ["replay", "show", str(replay), *options])


def test_show_lists_every_decision_each_failure_after_its_decision_and_the_result(tmp_path):
    replay, data = _played(tmp_path, "crazy-eights", "classic", [SAMPLES / "greedy", MISBEHAVING / "illegal"], 3)
    out = _show(replay)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith(f"crazy-eights classic, seed 3, {len(data['actions'])} decisions; "
                               "seats: 0 greedy, 1 illegal")
    decisions = [(i, DECISION.match(line)) for i, line in enumerate(lines)]
    decisions = [(i, m) for i, m in decisions if m]
    assert [int(m.group(1)) for _, m in decisions] == list(range(len(data["actions"])))
    for (_, m), record in zip(decisions, data["actions"]):
        assert int(m.group(3)) == record["seat"]
    fallback_lines = [lines[i] for i, m in decisions if data["actions"][int(m.group(1))]["by"] == "fallback"]
    assert fallback_lines and all(line.endswith("(fallback)") for line in fallback_lines)
    assert data["failures"]
    at = {int(m.group(1)): i for i, m in decisions}
    for failure in data["failures"]:
        after = lines[at[failure["decision"]] + 1:]
        assert after[0] == f"         ! seat 1: {failure['message']}", after[:2]
    assert lines[-3:] == ["result:", "  1. seat 0 greedy: score " + str(data["result"]["seats"][0]["score"])
                          + ", 0 strikes", lines[-1]]
    assert lines[-1].startswith("  2. seat 1 illegal:") and lines[-1].endswith("(taken over)")
    assert any(". hand_end" in line for line in lines) and any(". match_end" in line for line in lines)


@pytest.mark.parametrize(("game", "rules", "bots"), [
    ("crazy-eights", "classic", [SAMPLES / "greedy", SAMPLES / "random"]),
    ("crazy-rummy", "standard", [SAMPLES / "greedy", SAMPLES / "random", SAMPLES / "random"]),
])
def test_show_seat_shows_what_that_seat_saw_before_each_of_its_decisions(tmp_path, game, rules, bots):
    replay, data = _played(tmp_path, game, rules, bots, 4)
    seat = 1
    out = _show(replay, "--seat", str(seat))
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    state = new_match(game, make_rules(game, rules), len(bots), 4)  # the engine, re-run here
    expected = []
    for record in data["actions"]:
        if state.current_player == seat:
            hand = cards_name(state.view(seat)["hand"])
            legal = ", ".join(state.action_name(a) for a in state.legal_actions()[:10])
            expected.append((record["text"], hand, legal))
        state.apply(state.action_from_json(record["action"]))
    sees = [i for i, line in enumerate(lines) if line.startswith("       sees ")]
    assert len(sees) == len(expected) > 10
    for i, (text, hand, legal) in zip(sees, expected):
        assert lines[i].startswith(f"       sees hand {hand} | "), (lines[i], hand)
        assert re.search(r"\| legal( \(some; any legal action is accepted\))?: " + re.escape(legal), lines[i]), lines[i]
        decision = DECISION.match(lines[i + 1])
        assert decision and int(decision.group(3)) == seat and f"  {text} " in lines[i + 1]
    assert all(int(m.group(3)) == seat for m in map(DECISION.match, lines) if m)


def test_show_hand_keeps_one_hand_and_says_when_there_is_no_such_hand(tmp_path):
    replay, data = _played(tmp_path, "crazy-eights", "classic", [SAMPLES / "greedy", SAMPLES / "random"], 5)
    hands = max(e["data"]["hand"] for e in data["events"] if e["kind"] == "deal")
    assert hands >= 2
    out = _show(replay, "--hand", "2")
    numbers = [int(m.group(2)) for m in map(DECISION.match, out.output.splitlines()) if m]
    assert numbers and set(numbers) == {2}
    assert '. deal seat' in out.output and '"hand":2' in out.output and '"hand":1,' not in out.output
    none = _show(replay, "--hand", str(hands + 1))
    assert none.exit_code == 0
    assert f"(no hand {hands + 1}: this match had hands 1 to {hands})" in none.output
    assert not [m for m in map(DECISION.match, none.output.splitlines()) if m]


def test_show_names_a_bad_seat_and_a_replay_that_does_not_resimulate(tmp_path):
    replay, data = _played(tmp_path, "crazy-eights", "classic", [SAMPLES / "greedy", SAMPLES / "random"], 6)
    out = _show(replay, "--seat", "2")
    assert out.exit_code == 2 and "this replay has seats 0 to 1, not 2" in out.output
    data["actions"][3]["action"] = 9999  # not an action at all
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    bad = _show(tampered)
    assert bad.exit_code == 1
    assert "action 3 does not re-simulate" in bad.output and "talon replay verify" in bad.output
    assert "Traceback" not in bad.output


def test_a_rummy_replay_names_each_action_as_it_was_in_its_own_deal(tmp_path):
    """The wild rank changes every deal and a Rummy action's text marks its wilds: the text must
    be the one of the deal the action was played in (not the last deal's)."""
    from referee.replay import verify_replay

    _, data = _played(tmp_path, "crazy-rummy", "standard", [SAMPLES / "greedy", SAMPLES / "random",
                                                             SAMPLES / "random"], 4)
    state = new_match("crazy-rummy", make_rules("crazy-rummy", "standard"), 3, 4)
    wilds = 0
    for record in data["actions"]:
        action = state.action_from_json(record["action"])
        assert record["text"] == state.action_name(action)
        wilds += "*" in record["text"]
        state.apply(action)
    assert wilds > 0 and state.hand_number > 2
    assert verify_replay(data) == []
    melds = [e for e in data["events"] if e["kind"] == "meld"]  # the event's kind, beside the meld's own
    assert melds and {e["data"]["kind"] for e in melds} <= {"run", "set"}
    shown = _show(tmp_path / "crazy-rummy-4.json").output
    assert "meld run" in shown and ". meld " not in shown  # the decision line says it: no echo
    run = next(i for i, r in enumerate(data["actions"]) if r["action"]["kind"] == "meld_run")
    bad = json.loads(json.dumps(data))
    bad["actions"][run]["action"]["meanings"][0] = 60  # no card: illegal, and still nameable
    problems = verify_replay(bad)
    assert len(problems) == 1 and problems[0].startswith(f"action {run} (") and "60" in problems[0], problems
    index = next(i for i, r in enumerate(data["actions"]) if "*" in r["text"])
    data["actions"][index]["text"] = data["actions"][index]["text"].replace("*", "")
    assert verify_replay(data) == [f"action {index}: recorded as {data['actions'][index]['text']!r}, "
                                   f"but it is {state_text(data, index)!r}"]


def state_text(data, index):
    state = new_match("crazy-rummy", make_rules("crazy-rummy", "standard"), 3, 4)
    for record in data["actions"][:index]:
        state.apply(state.action_from_json(record["action"]))
    return state.action_name(state.action_from_json(data["actions"][index]["action"]))


def test_a_failure_of_another_seat_comes_before_the_decision_it_interrupted(tmp_path):
    replay, data = _played(tmp_path, "crazy-eights", "classic", [SAMPLES / "greedy", MISBEHAVING / "illegal"], 3)
    # say seat 1's first failure came while seat 0 was to act (as a crash found mid-turn is)
    index = next(i for i, a in enumerate(data["actions"]) if a["seat"] == 0 and i > 0)
    data["failures"] = [dict(data["failures"][0], decision=index)]
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(data))
    lines = _show(moved).output.splitlines()
    at = next(i for i, line in enumerate(lines) if (m := DECISION.match(line)) and int(m.group(1)) == index)
    assert lines[at - 1] == f"         ! seat 1: {data['failures'][0]['message']}"
    alone = _show(moved, "--seat", "1").output.splitlines()  # decision {index} is not shown: it is named
    assert f"         ! seat 1 at decision {index}: {data['failures'][0]['message']}" in alone


@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["failures"][0].pop("seat"), "failures[0] lacks 'seat'"),
    (lambda d: d["seats"].__setitem__(0, "greedy"), "seats[0] is str, not an object"),
    (lambda d: d["actions"][0].__setitem__("ms", "fast"), "actions[0]['ms'] is 'fast', not a number"),
    (lambda d: d["rules"].pop("preset"), "the replay's rules lacks 'preset'"),
    (lambda d: d.__setitem__("seats", []), "it has no seats"),
    (lambda d: d["result"]["seats"].pop(), "result.seats does not hold seats 0 to 1 once each"),
])
def test_a_malformed_replay_is_named_by_show_and_verify(tmp_path, edit, words):
    replay, data = _played(tmp_path, "crazy-eights", "classic", [SAMPLES / "greedy", MISBEHAVING / "illegal"], 3)
    edit(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    for command in ("show", "verify"):
        out = CliRunner().invoke(main, ["replay", command, str(bad)])
        assert out.exit_code == 1 and f"is malformed: {words}" in out.output and "Traceback" not in out.output


def test_a_version_1_replay_still_verifies_and_is_not_held_to_the_text_it_could_not_get_right(tmp_path):
    from referee.replay import verify_replay

    _, data = _played(tmp_path, "crazy-rummy", "standard", [SAMPLES / "greedy", SAMPLES / "random",
                                                             SAMPLES / "random"], 4)
    assert data["format"] == "talon-replay/2"
    index = next(i for i, r in enumerate(data["actions"]) if "*" in r["text"])
    data["actions"][index]["text"] = data["actions"][index]["text"].replace("*", "")
    assert verify_replay(data) != []
    data["format"] = "talon-replay/1"  # its texts were named with the final deal's wilds...
    data["events"] = [{"kind": e["kind"], "seat": e["seat"], **e["data"]} for e in data["events"]]  # ...and merged
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    out = CliRunner().invoke(main, ["replay", "verify", str(old)])
    assert out.exit_code == 0 and out.output.startswith("ok:"), out.output

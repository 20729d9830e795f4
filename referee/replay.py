"""Replay files: everything needed to re-simulate a match exactly, and the check that does it.

A replay is JSON: the rules, the seed, the seats, every action with who played it (the bot or
the fallback player) and how long the bot took, every public event, the failures and the
result. Because a match is a pure function of (rules, seed, actions), :func:`verify_replay`
re-plays the actions on a fresh engine and compares events, scores and standings, including
the referee's "taken over seats rank last" adjustment.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.games import IllegalActionError, MatchState, RulesError, make_rules, new_match

if TYPE_CHECKING:
    from referee.match_types import Clocks, MatchResult

FORMAT = "talon-replay/2"
"""Version 2 names each action as it was when played (version 1 named every action with the
match's final state: a Crazy Rummy action of an earlier deal could show the wrong wilds), and
keeps each event's details under ``data``, as the wire's ``Event`` does (version 1 merged them
into the event, so a meld event's own ``kind`` hid the event's)."""
READABLE = (FORMAT, "talon-replay/1")
"""Formats :func:`load_replay` reads; an action's recorded text is checked from version 2 on."""


def build_replay(result: MatchResult, state: MatchState[Any], records: Sequence[tuple[int, Any, bool, float, str]],
                 clocks: Clocks) -> dict[str, Any]:
    """The replay of a finished match (``records``: seat, action, by fallback, think seconds,
    the action's text as named when it was played)."""
    summary = result.summary_json()
    return {
        "format": FORMAT,
        "match_id": result.match_id,
        "game": result.game,
        "rules": dict(result.rules),
        "seed": result.seed,
        "clocks": {"decision_ms": clocks.decision_ms, "bank_ms": clocks.bank_ms, "max_strikes": clocks.max_strikes},
        "seats": [{"seat": s.seat, "name": s.name} for s in result.seats],
        "actions": [
            {"seat": seat, "action": state.action_to_json(action), "text": text,
             "by": "fallback" if by_fallback else "bot", "ms": round(think * 1000, 3)}
            for seat, action, by_fallback, think, text in records
        ],
        "events": [{"kind": kind, "seat": seat, "data": dict(data)} for kind, seat, data in state.event_records_since(0)],
        "failures": summary["failures"],
        "result": {"seats": summary["seats"], "decisions": result.decisions,
                   "duration_ms": summary["duration_ms"]},
    }


def write_replay(path: Path, replay: Mapping[str, Any]) -> None:
    """Write ``replay`` as JSON, making its folder if needed; :raises OSError: if it cannot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(replay, indent=1) + "\n")


def load_replay(path: Path) -> dict[str, Any]:
    """Read a replay file; :raises ValueError: naming what is missing or malformed."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"cannot read replay {str(path)!r}: {err}") from None
    if not isinstance(data, dict) or data.get("format") not in READABLE:
        raise ValueError(f"{str(path)!r} is not a Talon replay (format {' or '.join(map(repr, READABLE))})")
    problem = _shape_problem(data)
    if problem:
        raise ValueError(f"replay {str(path)!r} is malformed: {problem}")
    return data


_TOP = {"game": str, "rules": dict, "seed": int, "seats": list, "actions": list, "events": list, "result": dict}
_RULES = {"preset": str}
_SEAT = {"seat": int, "name": str}
_ACTION = {"seat": int, "action": object, "by": str}
_FAILURE = {"seat": int, "kind": str, "decision": int, "message": str}
_RESULT_SEAT = {"seat": int, "score": int, "game_place": int, "place": int, "taken_over": bool}


def _shape_problem(data: Mapping[str, Any]) -> str:
    """What in ``data`` does not have a replay's shape (the first thing found), or ""."""
    def missing(where: str, record: Any, fields: Mapping[str, type]) -> str:
        if not isinstance(record, dict):
            return f"{where} is {type(record).__name__}, not an object"
        for key, kind in fields.items():
            if key not in record:
                return f"{where} lacks {key!r}"
            if kind is int and (isinstance(record[key], bool) or not isinstance(record[key], int)):
                return f"{where}[{key!r}] is {record[key]!r}, not an integer"
            if kind is not int and not isinstance(record[key], kind):
                return f"{where}[{key!r}] is {type(record[key]).__name__}, not {kind.__name__}"
        return ""

    problem = missing("the replay", data, _TOP) or missing("the replay's rules", data["rules"], _RULES)
    if not problem and not isinstance(data["rules"].get("overrides", {}), dict):
        problem = "rules['overrides'] is not an object of switch = value"
    if not problem and not data["seats"]:
        problem = "it has no seats"
    for index, seat in enumerate(data["seats"] if not problem else []):
        problem = problem or missing(f"seats[{index}]", seat, _SEAT)
    failures = data.get("failures", []) if not problem else []
    if not isinstance(failures, list):
        problem = "its 'failures' is not a list"
    for index, failure in enumerate(failures if not problem else []):
        problem = problem or missing(f"failures[{index}]", failure, _FAILURE)
    for index, action in enumerate(data.get("actions", []) if not problem else []):
        problem = problem or missing(f"actions[{index}]", action, _ACTION)
        think = action.get("ms", 0) if isinstance(action, dict) else 0
        if not problem and (isinstance(think, bool) or not isinstance(think, (int, float))):
            problem = f"actions[{index}]['ms'] is {think!r}, not a number of milliseconds"
    seats = data["result"].get("seats") if not problem else []
    if not problem and not isinstance(seats, list):
        problem = "result lacks its 'seats' list"
    for index, seat in enumerate(seats or [] if not problem else []):
        problem = problem or missing(f"result.seats[{index}]", seat, _RESULT_SEAT)
    if not problem and sorted(s["seat"] for s in seats) != list(range(len(data["seats"]))):
        problem = f"result.seats does not hold seats 0 to {len(data['seats']) - 1} once each"
    return problem


def replay_state(data: Mapping[str, Any]) -> MatchState[Any]:
    """The replay's match before its first action: its rules, seat count and seed.

    :raises ValueError: ``cannot start the match: ...`` with the engine's reason.
    """
    rules_json = data["rules"]
    try:
        rules = make_rules(data["game"], rules_json["preset"], rules_json.get("overrides") or {})
        return new_match(data["game"], rules, len(data["seats"]), int(data["seed"]))
    except (RulesError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"cannot start the match: {err}") from None


def verify_replay(data: Mapping[str, Any]) -> list[str]:
    """Re-simulate a replay; return the differences found (empty: it replays exactly)."""
    problems: list[str] = []
    try:
        state = replay_state(data)
    except ValueError as err:
        return [str(err)]
    checks_text = data.get("format") != "talon-replay/1"  # version 2 and on
    for index, record in enumerate(data["actions"]):
        if state.is_over:
            problems.append(f"action {index}: the match is already over")
            return problems
        if record["seat"] != state.current_player:
            problems.append(f"action {index}: recorded for seat {record['seat']}, but seat "
                            f"{state.current_player} was to act")
            return problems
        try:
            action = state.action_from_json(record["action"])
            text = state.action_name(action)
            state.apply(action)
        except IllegalActionError as err:
            problems.append(f"action {index} ({record.get('text')}): {err}")
            return problems
        if checks_text and "text" in record and record["text"] != text:
            problems.append(f"action {index}: recorded as {record['text']!r}, but it is {text!r}")
    if not state.is_over:
        problems.append(f"the match is not over after the {len(data['actions'])} recorded actions")
    if checks_text:
        events = [{"kind": e.kind, "seat": e.seat, "data": dict(e.data)} for e in state.events]
    else:  # version 1: details merged into the event
        events = [e.to_json() for e in state.events]
    if events != data["events"]:
        first = next((i for i, (a, b) in enumerate(zip(events, data["events"])) if a != b),
                     min(len(events), len(data["events"])))
        problems.append(f"events differ from index {first} ({len(events)} re-simulated, "
                        f"{len(data['events'])} recorded)")
    seats = data["result"]["seats"]
    scores = list(state.scores)
    game_places = state.standings()
    places = expected_places(game_places, [bool(s["taken_over"]) for s in seats])
    for seat in seats:
        i = seat["seat"]
        for key, value in (("score", scores[i]), ("game_place", game_places[i]), ("place", places[i])):
            if seat[key] != value:
                problems.append(f"seat {i}: recorded {key} {seat[key]}, re-simulated {value}")
    fallback_seats = {r["seat"] for r in data["actions"] if r["by"] == "fallback"}
    for seat in seats:
        if seat["taken_over"] and seat["seat"] not in fallback_seats and data["actions"]:
            problems.append(f"seat {seat['seat']} is recorded as taken over but never played by the fallback")
    return problems


def expected_places(game_places: Sequence[int], taken_over: Sequence[bool]) -> list[int]:
    """Final places: seats kept rank among themselves by the game; seats taken over rank last."""
    kept = [i for i, t in enumerate(taken_over) if not t]
    return [
        len(kept) + 1 if taken_over[i] else 1 + sum(1 for j in kept if game_places[j] < game_places[i])
        for i in range(len(game_places))
    ]

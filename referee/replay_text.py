"""A replay as text a bot author reads (``talon replay show``).

Every decision in order with who made it (the bot or the fallback player) and how long it
took, the public events that mark the match's course (deals, hand ends, reshuffles), each
failure right after the decision it happened at, and the result. For one seat it also shows,
before each of that seat's decisions, what the seat saw: its view, re-simulated from rules,
seed and actions with the same ``view()`` the referee sent it from, so it is exactly what the
bot decided on, never another seat's cards.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.cards import card_name, cards_name, suit_name
from referee.games import IllegalActionError, MatchState, RulesError, make_rules, new_match

NOTABLE_EVENTS = frozenset({
    "deal", "upcard", "upcard_buried", "hand_end", "deal_end", "reshuffle", "stock_exhausted", "loop_guard",
    "stalled", "blocked", "go_out", "out", "match_end",
})
"""Events printed between decisions; plays and draws are the decisions themselves."""
LEGAL_SHOWN = 10
"""Legal actions listed in a seat's view line; the rest are counted."""


class ReplayTextError(ValueError):
    """The replay cannot be shown (it does not re-simulate); the message says where."""


def replay_lines(data: Mapping[str, Any], seat: int | None = None, hand: int | None = None) -> Iterator[str]:
    """The lines of ``data`` (a loaded replay), all seats or only ``seat``'s decisions (with
    its views), all hands or only ``hand``.

    :raises ReplayTextError: for a replay whose rules or actions do not re-simulate.
    """
    state = _start(data)
    names = {int(s["seat"]): str(s["name"]) for s in data["seats"]}
    failures: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for failure in data.get("failures", []):
        failures[int(failure.get("decision", -1))].append(failure)
    yield _header(data, names)
    yield from _events(state, 0, hand, state.hand_number)
    seen = len(state.events)
    width = _width(names)
    actions = data["actions"]
    for index, record in enumerate(actions):
        actor, hand_now = state.current_player, state.hand_number
        in_hand = hand is None or hand_now == hand
        shown = in_hand and (seat is None or actor == seat)
        if shown and seat is not None:
            yield "       sees " + view_line(state.view(actor), [state.action_name(a) for a in state.legal_actions()])
        try:
            action = state.action_from_json(record["action"])
            text = state.action_name(action)
            state.apply(action)
        except (IllegalActionError, KeyError, TypeError, ValueError) as err:
            raise ReplayTextError(f"action {index} does not re-simulate ({err}); `talon replay verify` "
                                  "checks the whole file") from None
        if shown:
            by = "  (fallback)" if record.get("by") == "fallback" else ""
            yield (f"{index:6d}  hand {hand_now:<3d} seat {actor} {names.get(actor, '?'):<{width}}  "
                   f"{text:<28} {float(record.get('ms', 0.0)):8.2f} ms{by}")
        for failure in failures.pop(index, []):
            if in_hand and (seat is None or failure["seat"] == seat):
                yield f"         ! seat {failure['seat']} {_failure_words(failure)}"
        yield from _events(state, seen, hand, hand_now)
        seen = len(state.events)
    if hand is not None and hand > state.hand_number:
        yield f"         (no hand {hand}: this match had hands 1 to {state.hand_number})"
    for rest in failures.values():  # failures outside any decision (before the first, after the last)
        for failure in rest:
            if seat is None or failure["seat"] == seat:
                yield f"         ! seat {failure['seat']} at decision {failure.get('decision')}: {_failure_words(failure)}"
    yield from _result(data, names)


def view_line(view: Mapping[str, Any], legal: Sequence[str]) -> str:
    """One seat's view in one line: its hand, the table, and its legal actions."""
    parts = []
    if "hand" in view:
        parts.append("hand " + (cards_name(view["hand"]) or "(empty)"))
    if view.get("top_card") is not None:
        follow = view.get("suit_to_follow")
        top = f"top {card_name(view['top_card'])}"
        if view.get("named_suit") is not None:
            top += f" (named {suit_name(view['named_suit'])})"
        elif follow is not None and follow != view["top_card"] // 13:
            top += f" (follow {suit_name(follow)})"
        parts.append(top)
    if view.get("discard_pile"):
        parts.append(f"discard {card_name(view['discard_pile'][-1])}")
    if view.get("pending_draw"):
        parts.append(f"{view['pending_draw']} to draw")
    if view.get("drawn_card") is not None:
        parts.append(f"drew {card_name(view['drawn_card'])}")
    for meld in view.get("melds", []):
        parts.append(f"{meld['kind']} {meld['index']} {cards_name(meld['cards'])} (seat {meld['owner']})")
    if "stock_size" in view:
        parts.append(f"stock {view['stock_size']}")
    if "hand_sizes" in view:
        parts.append("hands " + "/".join(str(n) for n in view["hand_sizes"]))
    more = f", ... {len(legal) - LEGAL_SHOWN} more" if len(legal) > LEGAL_SHOWN else ""
    parts.append("legal: " + ", ".join(legal[:LEGAL_SHOWN]) + more)
    return " | ".join(parts)


def _start(data: Mapping[str, Any]) -> MatchState[Any]:
    rules_json = data["rules"]
    try:
        rules = make_rules(data["game"], rules_json["preset"], rules_json.get("overrides") or {})
        return new_match(data["game"], rules, len(data["seats"]), int(data["seed"]))
    except (RulesError, KeyError, TypeError, ValueError) as err:
        raise ReplayTextError(f"cannot start the replay's match: {err}") from None


def _header(data: Mapping[str, Any], names: Mapping[int, str]) -> str:
    seats = ", ".join(f"{seat} {name}" for seat, name in sorted(names.items()))
    overrides = data["rules"].get("overrides") or {}
    rules = data["rules"].get("preset", "?") + "".join(f" {k}={v}" for k, v in sorted(overrides.items()))
    return (f"{data['game']} {rules}, seed {data['seed']}, {len(data['actions'])} decisions; seats: {seats}\n"
            f"{'#':>6}  {'hand':<8} {'seat':<{7 + _width(names)}}  {'action':<28} {'think':>11}")


def _width(names: Mapping[int, str]) -> int:
    return max((len(n) for n in names.values()), default=4)


def _result(data: Mapping[str, Any], names: Mapping[int, str]) -> Iterator[str]:
    yield "result:"
    for entry in sorted(data["result"]["seats"], key=lambda s: (s["place"], s["seat"])):
        over = "  (taken over)" if entry.get("taken_over") else ""
        yield (f"  {entry['place']}. seat {entry['seat']} {names.get(entry['seat'], '?')}: score {entry['score']}, "
               f"{entry.get('strikes', 0)} strikes{over}")


def _events(state: MatchState[Any], start: int, hand: int | None, hand_now: int) -> Iterator[str]:
    """The notable events from index ``start`` on (of ``hand`` only, when given). An event
    without a hand number of its own belongs to the hand of the last deal before it."""
    current = hand_now
    for kind, who, info in state.event_records_since(start):
        numbered = info.get("hand", info.get("deal_number"))
        if isinstance(numbered, int) and kind in ("deal", "dealer_draw"):
            current = numbered
        if kind in NOTABLE_EVENTS and (hand is None or (numbered if isinstance(numbered, int) else current) == hand):
            details = json.dumps(dict(info), separators=(",", ":")) if info else ""
            yield f"         . {kind}{f' seat {who}' if who >= 0 else ''} {details}".rstrip()


def _failure_words(failure: Mapping[str, Any]) -> str:
    """The failure's words, led by its kind unless they already say it (``illegal: ...``)."""
    kind, message = str(failure["kind"]), str(failure["message"])
    return message if message.startswith(kind) else f"{kind}: {message}"

"""A replay as text a bot author reads (``talon replay show``).

Every decision in order with who made it (the bot or the fallback player) and how long it
took, the public events between decisions (deals, penalties, reshuffles, hand ends), each
failure where it happened, and the result. For one seat it also shows, before each of that
seat's decisions, what the seat saw: its view, re-simulated from rules, seed and actions with
the same ``view()`` the referee sent it from, so it is exactly what the bot decided on, never
another seat's cards.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.cards import CardError, card_name, rank_name, suit_name
from referee.games import IllegalActionError, MatchState
from referee.games.base import switch_text
from referee.match_wire import legal_complete
from referee.replay import replay_state

DECISION_ECHOES = frozenset({"play", "draw", "pass", "discard", "name_suit", "meld", "lay_off", "exchange"})
"""Events that only repeat the decision line above them; every other event is printed."""
LEGAL_SHOWN = 10
"""Legal actions listed in a seat's view line; the rest are counted."""
ACTION_WIDTH = (28, 60)
"""The action column's width: the longest action of the replay, within these bounds."""


class ReplayTextError(ValueError):
    """The replay cannot be shown (it does not re-simulate); the message says where."""


def replay_lines(data: Mapping[str, Any], seat: int | None = None, hand: int | None = None) -> Iterator[str]:
    """The lines of ``data`` (a replay that passed :func:`referee.replay.load_replay`), all
    seats or only ``seat``'s decisions (each after the view it decided on), all hands or only
    ``hand``.

    :raises ReplayTextError: for a replay whose rules or actions do not re-simulate.
    """
    try:
        state = replay_state(data)
    except ValueError as err:
        raise ReplayTextError(str(err)) from None
    names = {int(s["seat"]): str(s["name"]) for s in data["seats"]}
    failures: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for failure in data.get("failures", []):
        failures[failure["decision"]].append(failure)
    width = max(ACTION_WIDTH[0], min(ACTION_WIDTH[1], max((len(str(a.get("text", ""))) for a in data["actions"]),
                                                           default=0)))
    layout = _Layout(names, width)
    yield from _header(data, layout)
    records = state.event_records_since(0)
    yield from _events(records, hand, state.hand_number)
    seen = len(records)
    for index, record in enumerate(data["actions"]):
        actor, hand_now = state.current_player, state.hand_number
        in_hand = hand is None or hand_now == hand
        shown = in_hand and (seat is None or actor == seat)
        mine = [f for f in failures.pop(index, []) if seat is None or f["seat"] == seat]
        if in_hand:  # failures of other seats came while this decision was pending: before its line
            yield from (layout.failure(f, None if shown else index) for f in mine if f["seat"] != actor)
        if record["seat"] != actor:
            raise ReplayTextError(f"action {index} is recorded for seat {record['seat']}, but seat {actor} was to "
                                  "act; `talon replay verify` checks the whole file")
        if shown and seat is not None:
            who = "fallback sees" if record.get("by") == "fallback" else "sees"
            yield f"       {who} " + view_line(state.view(actor), [state.action_name(a) for a in state.legal_actions()],
                                              legal_complete(state))
        try:
            action = state.action_from_json(record["action"])
            text = state.action_name(action)
            state.apply(action)
        except (IllegalActionError, KeyError, TypeError, ValueError) as err:
            raise ReplayTextError(f"action {index} does not re-simulate ({err}); `talon replay verify` "
                                  "checks the whole file") from None
        if shown:
            yield layout.decision(index, hand_now, actor, text, record)
        if in_hand:
            yield from (layout.failure(f, None if shown else index) for f in mine if f["seat"] == actor)
        records = state.event_records_since(seen)
        yield from _events(records, hand, hand_now)
        seen += len(records)
    yield from _ending(state, data, hand, seat, failures, layout)


def view_line(view: Mapping[str, Any], legal: Sequence[str], complete: bool = True) -> str:
    """One seat's view in one line: its hand, the table, and its legal actions."""
    parts = []
    if "hand" in view:
        parts.append("hand " + (_cards(view["hand"]) or "(empty)"))
    if view.get("top_card") is not None:
        top = f"top {_card(view['top_card'])}"
        follow, named = view.get("suit_to_follow"), view.get("named_suit")
        if named is not None and view.get("phase") != "name_suit":  # the dealer is naming it now
            top += f" (named {_suit(named)})"
        elif follow is not None and named is None and follow != view["top_card"] // 13:
            top += f" (follow {_suit(follow)})"
        parts.append(top)
    if view.get("pending_draw"):
        parts.append(f"{view['pending_draw']} to draw")
    wilds = view.get("wild_ranks")
    if isinstance(wilds, list) and 0 <= view.get("seat", -1) < len(wilds):
        parts.append(f"wild {_rank(wilds[view['seat']])}")
    if view.get("wild_rank") is not None:
        parts.append(f"wild {_rank(view['wild_rank'])}")
    if view.get("direction") == -1:
        parts.append("play goes the other way")
    if view.get("discard_pile"):
        parts.append(f"discard {_card(view['discard_pile'][-1])}")
    if view.get("drawn_card") is not None:
        parts.append(f"drew {_card(view['drawn_card'])}")
    if view.get("must_place") is not None:
        parts.append(f"must meld {_card(view['must_place'])}")
    for meld in view.get("melds", []):
        run = meld.get("kind") == "run"
        cards = " ".join(_meld_card(c, m, run) for c, m in zip(meld["cards"], meld.get("meanings") or meld["cards"]))
        parts.append(f"{meld['kind']} {meld['index']} {cards} (seat {meld['owner']})")
    if "stock_size" in view:
        parts.append(f"stock {view['stock_size']}")
    if "hand_sizes" in view:
        parts.append("hands " + "/".join(str(n) for n in view["hand_sizes"]))
    more = f", ... {len(legal) - LEGAL_SHOWN} more" if len(legal) > LEGAL_SHOWN else ""
    label = "legal" if complete else "legal (some; any legal action is accepted)"
    parts.append(f"{label}: " + ", ".join(legal[:LEGAL_SHOWN]) + more)
    return " | ".join(parts)


class _Layout:
    """The columns of decision and failure lines."""

    def __init__(self, names: Mapping[int, str], action_width: int) -> None:
        self.names = names
        self.name_width = max((len(n) for n in names.values()), default=4)
        self.action_width = action_width

    def header(self) -> str:
        return (f"{'#':>6}  {'hand':<8} {'seat':<{7 + self.name_width}}  {'action':<{self.action_width}} "
                f"{'think':>11}")

    def decision(self, index: int, hand: int, seat: int, text: str, record: Mapping[str, Any]) -> str:
        by = "  (fallback)" if record.get("by") == "fallback" else ""
        return (f"{index:6d}  hand {hand:<3d} seat {seat} {self.names.get(seat, '?'):<{self.name_width}}  "
                f"{text:<{self.action_width}} {float(record.get('ms', 0.0)):8.2f} ms{by}")

    @staticmethod
    def failure(failure: Mapping[str, Any], decision: int | None) -> str:
        """A failure line; ``decision`` is named when its decision's own line is not next to it."""
        where = f" at decision {decision}" if decision is not None else ""
        kind, message = str(failure["kind"]), str(failure["message"])
        said = message if message.split(":")[0] in (kind, kind.split("_")[0]) else f"{kind}: {message}"
        return f"         ! seat {failure['seat']}{where}: {said}"


def _events(records: Sequence[tuple[str, int, Mapping[str, Any]]], hand: int | None, hand_now: int) -> Iterator[str]:
    """The events of ``records`` that say more than a decision line (of ``hand`` only, when
    given). An event without a hand number of its own belongs to the hand of the last deal."""
    current = hand_now
    for kind, who, info in records:
        numbered = info.get("hand", info.get("deal_number"))
        if isinstance(numbered, int) and kind in ("deal", "new_hand", "dealer_draw"):
            current = numbered
        if kind in DECISION_ECHOES:
            continue
        if hand is None or (numbered if isinstance(numbered, int) else current) == hand:
            details = json.dumps(dict(info), separators=(",", ":")) if info else ""
            yield f"         . {kind}{f' seat {who}' if who >= 0 else ''} {details}".rstrip()


def _ending(state: MatchState[Any], data: Mapping[str, Any], hand: int | None, seat: int | None,
            failures: Mapping[int, list[Mapping[str, Any]]], layout: _Layout) -> Iterator[str]:
    """What follows the last decision: failures after it, notes, the result."""
    if hand is None or hand == state.hand_number:
        for decision, rest in sorted(failures.items()):
            yield from (layout.failure(f, decision) for f in rest if seat is None or f["seat"] == seat)
    if hand is not None and hand > state.hand_number:
        yield f"         (no hand {hand}: this match had hands 1 to {state.hand_number})"
    if not state.is_over:
        yield f"         (the replay ends here: the match is not over after its {len(data['actions'])} actions)"
    yield "result:"
    for entry in sorted(data["result"]["seats"], key=lambda s: (s["place"], s["seat"])):
        over = "  (taken over)" if entry.get("taken_over") else ""
        yield (f"  {entry['place']}. seat {entry['seat']} {layout.names.get(entry['seat'], '?')}: "
               f"score {entry['score']}, {entry.get('strikes', 0)} strikes{over}")


def _header(data: Mapping[str, Any], layout: _Layout) -> Iterator[str]:
    seats = ", ".join(f"{seat} {name}" for seat, name in sorted(layout.names.items()))
    overrides = data["rules"].get("overrides") or {}
    rules = data["rules"]["preset"] + "".join(f" {k}={switch_text(v)}" for k, v in sorted(overrides.items()))
    yield f"{data['game']} {rules}, seed {data['seed']}, {len(data['actions'])} decisions; seats: {seats}"
    yield layout.header()


def _card(card: Any) -> str:
    try:
        return card_name(card)
    except (CardError, TypeError):
        return f"?{card}"


def _cards(cards: Sequence[Any]) -> str:
    return " ".join(_card(c) for c in cards)


def _rank(rank: Any) -> str:
    try:
        return rank_name(rank)
    except (CardError, TypeError):
        return f"?{rank}"


def _suit(suit: Any) -> str:
    try:
        return suit_name(suit)
    except (CardError, TypeError):
        return f"?{suit}"


def _meld_card(card: int, meaning: int, run: bool) -> str:
    """A meld's card, showing what it stands for when that is not itself (``AS*=QC``)."""
    if run:
        return _card(card) if card == meaning else f"{_card(card)}*={_card(meaning)}"
    return _card(card) if isinstance(card, int) and card % 13 + 1 == meaning else f"{_card(card)}*={_rank(meaning)}"

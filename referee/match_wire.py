"""Turning engine values into wire messages and back, cheaply.

The referee builds one request per decision, so this module precomputes how each view field
maps to the proto once per game and encodes each public event once per match (every seat gets
the same bytes-equivalent message object). Decoding a bot's action separates what breaks the
protocol (wrong game, empty, undecodable) from what the rules forbid (left to the engine).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from referee.games import IllegalActionError, MatchState
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb

_SKIPPED_KEYS = frozenset({"game", "rules"})
"""View keys carried elsewhere on the wire: the oneof names the game, the Welcome the rules."""


_DUMPS = json.JSONEncoder(separators=(",", ":")).encode


class ProtocolViolation(Exception):
    """A bot message that breaks the protocol; ``str()`` says what and what is allowed."""


def _int_lists(value: Sequence[Sequence[int]]) -> list[gpb.IntList]:
    return [gpb.IntList(values=v) for v in value]


def _melds(value: Sequence[Mapping[str, Any]]) -> list[gpb.Meld]:
    return [
        gpb.Meld(index=m.get("index", i), owner=m["owner"], kind=m["kind"], cards=m["cards"],
                 meanings=m.get("meanings") or [])
        for i, m in enumerate(value)
    ]


class ViewCodec:
    """Maps a game's view dict to its proto message, with the plan computed once."""

    def __init__(self, message: type[Message], extra_field: str | None = None) -> None:
        self.message = message
        self.extra_field = extra_field
        self.plan: dict[str, Callable[[Any], Any] | None] = {}
        self.int_lists: set[str] = set()
        """Per-hand score lists: they only grow, so their encoding is cached (see encode)."""
        self._cached: dict[str, tuple[tuple[int, tuple[int, ...]], bytes]] = {}
        self.pending_merges: list[bytes] = []
        for field in message.DESCRIPTOR.fields:
            if field.name == extra_field:
                continue
            convert: Callable[[Any], Any] | None = None
            if field.message_type is not None and field.message_type.name == "IntList":
                self.int_lists.add(field.name)
                continue
            if field.message_type is not None and field.message_type.name == "Meld":
                convert = _melds
            self.plan[field.name] = convert
        self.direct = frozenset(name for name, convert in self.plan.items() if convert is None)
        self.converted = {name: convert for name, convert in self.plan.items() if convert is not None}
        self.known = frozenset(self.plan) | self.int_lists | _SKIPPED_KEYS
        """Keys with a place of their own; any other key goes to the extra field (JSON)."""

    def fields(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """The proto fields of ``view`` as constructor values; nested score lists are left in
        :attr:`pending_merges` as encoded bytes to merge into the built message.

        :raises KeyError: for an unknown key when the message has no extra field (an engine
            that grew a view field the contract does not carry yet: a referee bug, not a bot's).
        """
        direct = self.direct
        kwargs = {key: value for key, value in view.items() if key in direct and value is not None}
        for key, convert in self.converted.items():
            value = view.get(key)
            if value is not None:
                kwargs[key] = convert(value)
        self.pending_merges = [self._int_lists_bytes(key, view[key]) for key in self.int_lists if view.get(key)]
        if not view.keys() <= self.known:
            known = self.known
            extra = {key: value for key, value in view.items() if key not in known and value is not None}
            if extra:
                if self.extra_field is None:
                    raise KeyError(f"view field {next(iter(extra))!r} has no place in "
                                   f"{self.message.DESCRIPTOR.full_name}")
                kwargs[self.extra_field] = json.dumps(extra, separators=(",", ":"))
        return kwargs

    def encode(self, view: Mapping[str, Any]) -> Message:
        """The proto of ``view`` (see :meth:`fields`)."""
        message = self.message(**self.fields(view))
        for blob in self.pending_merges:
            message.MergeFromString(blob)
        return message

    def _int_lists_bytes(self, key: str, value: Sequence[Sequence[int]]) -> bytes:
        """The encoding of one list-of-lists field, rebuilt only when the list grew.

        Building 50 nested messages costs about 130 us, merging their cached bytes about 5 us;
        the lists are per-hand scores, which only ever gain a hand at the end.
        """
        mark = (len(value), tuple(value[-1]))
        cached = self._cached.get(key)
        if cached is not None and cached[0] == mark:
            return cached[1]
        blob = self.message(**{key: _int_lists(value)}).SerializeToString()
        self._cached[key] = (mark, blob)
        return blob


class GameCodec:
    """Per-game encoding of views, legal actions and actions."""

    game: str
    view_field: str

    def __init__(self, game: str) -> None:
        self.game = game
        if game == "crazy-eights":
            self.view_field = "crazy_eights"
            self.views = ViewCodec(gpb.CrazyEightsView)
        else:
            self.view_field = "crazy_rummy"
            self.views = ViewCodec(gpb.CrazyRummyView, extra_field="extra_json")

    def request(
        self,
        request_id: int,
        decision: int,
        deadline_ms: int,
        bank_ms: int,
        view: Mapping[str, Any],
        legal: Sequence[Any],
        complete: bool,
        events: Sequence[gpb.Event],
    ) -> bpb.RefereeMessage:
        """The message asking one seat for one decision.

        Built in one constructor call from plain values: nesting ready-made messages would copy
        each of them again (about 4 us of the referee's 60 us per decision).
        """
        if self.view_field == "crazy_eights":
            legal_json: dict[str, Any] = {"complete": complete, "crazy_eights": legal}
        else:
            legal_json = {"complete": complete, "crazy_rummy": [rummy_action_fields(a) for a in legal]}
        message = bpb.RefereeMessage(request={
            "request_id": request_id, "decision": decision, "deadline_ms": deadline_ms, "time_bank_ms": bank_ms,
            "legal": legal_json, "events": events, self.view_field: self.views.fields(view),
        })
        blobs = self.views.pending_merges
        if blobs:
            inner = getattr(message.request, self.view_field)
            for blob in blobs:
                inner.MergeFromString(blob)
        return message

    def decode(self, action: gpb.Action, state: MatchState[Any]) -> Any:
        """The game action a bot sent.

        :raises ProtocolViolation: for an empty action or one encoded for another game.
        :raises IllegalActionError: for text or an id the game cannot read (the engine's words).
        """
        which = action.WhichOneof("action")
        if which == "text":
            return state.parse_action(action.text)
        if which == self.view_field:
            if which == "crazy_eights":
                return state.action_from_json(action.crazy_eights)
            return state.action_from_json(rummy_action_json(action.crazy_rummy))
        allowed = f"Action.{self.view_field} or Action.text"
        if which is None:
            raise ProtocolViolation(f"protocol: the answer carries no action; send {allowed}")
        raise ProtocolViolation(f"protocol: Action.{which} is for another game; this match plays {self.game}: send {allowed}")


def rummy_action_proto(action: Any) -> gpb.CrazyRummyAction:
    """A Crazy Rummy action (the engine's tuple) as a proto."""
    return gpb.CrazyRummyAction(kind=action[0], cards=action[1], meanings=action[2], target=action[3])


def rummy_action_fields(action: Any) -> dict[str, Any]:
    return {"kind": action[0], "cards": action[1], "meanings": action[2], "target": action[3]}


def rummy_action_json(msg: gpb.CrazyRummyAction) -> dict[str, Any]:
    """The JSON form the Rummy engine reads, from a proto."""
    return {"kind": msg.kind, "cards": list(msg.cards), "meanings": list(msg.meanings), "target": msg.target}


def new_events(state: MatchState[Any], start: int) -> Sequence[Any]:
    """The public events of ``state`` from index ``start`` on, as ``(kind, seat, data)``.

    Through ``event_records_since``, which costs only the new events: building the whole list
    on every decision made a long match quadratic (22 ms per decision after 14,000 events).
    """
    return state.event_records_since(start)


class EventCache:
    """Each public event encoded once, shared by every seat's requests."""

    def __init__(self) -> None:
        self.encoded: list[gpb.Event] = []

    def upto(self, state: MatchState[Any]) -> list[gpb.Event]:
        """Encoded events, extended to cover every event of ``state`` so far."""
        encoded = self.encoded
        index = len(encoded)
        for kind, seat, data in new_events(state, index):
            text = _DUMPS(data) if data else "{}"
            encoded.append(gpb.Event(index=index, kind=kind, seat=seat, data_json=text))
            index += 1
        return encoded


def legal_complete(state: MatchState[Any]) -> bool:
    """Whether ``legal_actions()`` lists every legal action (all but Crazy Rummy's table phase)."""
    return state.game == "crazy-eights" or getattr(state, "phase", "") != "table"


_WORDS_LIMIT = 600
"""Longest failure message (the engine quotes what a bot sent, cut; this bounds the rest)."""


def illegal_words(err: IllegalActionError) -> str:
    """The engine's reason, starting with ``illegal:``, at most :data:`_WORDS_LIMIT` characters."""
    text = str(err)
    return bounded(text if text.startswith("illegal") else f"illegal: {text}")


def bounded(words: str) -> str:
    """``words`` cut to :data:`_WORDS_LIMIT` characters: every failure is sent to the bot and
    stored, and a message built from a bot's input must not grow with it."""
    return words if len(words) <= _WORDS_LIMIT else words[:_WORDS_LIMIT] + "..."

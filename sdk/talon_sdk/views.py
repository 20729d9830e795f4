"""Typed views: what your bot sees at each decision, with helpers.

A view is built from the referee's request once per decision. Cards are ints (see
:mod:`talon_sdk.cards`: ``card_name(c)`` prints one, ``parse_card("8H")`` reads one). Crazy
Eights actions are :class:`EightsAction` values (an ``int`` subclass: the wire code) that print
as the rules engine writes them (``play 8H name S``); return one of ``view.legal_actions``, or
an action's text.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from talon_sdk.cards import card_name, card_rank, card_suit, parse_card, parse_suit, suit_name

DRAW, PASS, STOP, NAME_SUIT, PLAY, NO_SUIT = 0, 1, 2, 4, 64, 4


class EightsAction(int):
    """A Crazy Eights action: its int value is the wire code (layout in ``game.proto``)."""

    __slots__ = ()

    @classmethod
    def play(cls, card: int, named_suit: int | None = None, announce: bool = False) -> EightsAction:
        """Playing ``card`` (naming ``named_suit`` for a wild; announcing a last card)."""
        named = NO_SUIT if named_suit is None else named_suit
        return cls(PLAY + (card << 4) + (named << 1) + int(announce))

    @classmethod
    def parse(cls, text: str) -> EightsAction:
        """Read ``draw``, ``pass``, ``stop``, ``name H``, ``play 7C``, ``play 8H name S last``."""
        words = text.strip().lower().split()
        simple = {"draw": DRAW, "pass": PASS, "stop": STOP}
        if len(words) == 1 and words[0] in simple:
            return cls(simple[words[0]])
        if len(words) == 2 and words[0] == "name":
            return cls(NAME_SUIT + parse_suit(words[1]))
        if len(words) >= 2 and words[0] == "play":
            rest = words[2:]
            announce = bool(rest) and rest[-1] == "last"
            rest = rest[:-1] if announce else rest
            if rest and (len(rest) != 2 or rest[0] != "name"):
                raise ValueError(f"cannot read action {text!r}: after the card write 'name S' and/or 'last'")
            return cls.play(parse_card(words[1]), parse_suit(rest[1]) if rest else None, announce)
        raise ValueError(f"cannot read action {text!r}; forms: draw, pass, stop, name H, play 7C, "
                         "play 8H name S, play 7C last")

    @property
    def kind(self) -> str:
        """``draw``, ``pass``, ``stop``, ``name`` or ``play``."""
        if self >= PLAY:
            return "play"
        return {DRAW: "draw", PASS: "pass", STOP: "stop"}.get(int(self), "name")

    @property
    def is_play(self) -> bool:
        return self >= PLAY

    @property
    def card(self) -> int | None:
        """The card played, or None."""
        return (self - PLAY) >> 4 if self >= PLAY else None

    @property
    def named_suit(self) -> int | None:
        """The suit named (by a wild, or by the dealer), or None."""
        if self >= PLAY:
            named = ((self - PLAY) >> 1) & 7
            return None if named == NO_SUIT else named
        return self - NAME_SUIT if NAME_SUIT <= self < NAME_SUIT + 4 else None

    @property
    def announce(self) -> bool:
        """Whether the play announces a last card."""
        return self >= PLAY and bool((self - PLAY) & 1)

    def __str__(self) -> str:
        kind = self.kind
        if kind == "play":
            card = self.card
            text = "play " + card_name(card if card is not None else 0)
            named = self.named_suit
            if named is not None:
                text += " name " + suit_name(named)
            return text + (" last" if self.announce else "")
        if kind == "name":
            return "name " + suit_name(int(self) - NAME_SUIT)
        return kind

    def __repr__(self) -> str:
        return f"EightsAction({str(self)!r})"


@dataclasses.dataclass(frozen=True)
class Event:
    """A public event. ``data`` holds its details (keys per kind, see the game docs)."""

    index: int
    kind: str
    seat: int
    data_json: str

    @property
    def data(self) -> dict[str, Any]:
        value = json.loads(self.data_json or "{}")
        return value if isinstance(value, dict) else {}


@dataclasses.dataclass(frozen=True)
class Decision:
    """Facts about the decision itself, common to every game."""

    request_id: int
    decision: int
    """Index of this decision in the match (all seats)."""
    deadline_ms: int
    """Time to answer before the bank is touched."""
    time_bank_ms: int
    """What the bank still holds; the hard limit is deadline_ms + time_bank_ms."""
    complete: bool
    """Whether legal_actions lists every legal action."""
    events: tuple[Event, ...]
    """Public events since your previous request."""


@dataclasses.dataclass(frozen=True)
class EightsView:
    """What your seat knows at a Crazy Eights decision (fields as in ``CrazyEightsView``)."""

    decision: Decision
    legal_actions: tuple[EightsAction, ...]
    seat: int
    num_players: int
    preset: str
    hand_number: int
    dealer: int
    current_player: int
    phase: str
    hand: tuple[int, ...]
    top_card: int | None
    suit_to_follow: int
    named_suit: int | None
    pile: tuple[int, ...]
    stock_size: int
    hand_sizes: tuple[int, ...]
    direction: int
    pending_draw: int
    drawn_this_turn: int
    drawn_card: int | None
    scores: tuple[int, ...]
    hand_scores: tuple[tuple[int, ...], ...]
    personal_scores: tuple[int, ...]
    wild_ranks: tuple[int, ...]
    turn: int

    game = "crazy-eights"

    @property
    def plays(self) -> list[EightsAction]:
        """The legal plays (no draw, pass or stop)."""
        return [a for a in self.legal_actions if a >= PLAY]

    @property
    def wild_rank(self) -> int:
        """Your wild rank (8, or your personal rank in Countdown)."""
        return self.wild_ranks[self.seat] if self.wild_ranks else 8

    def is_wild(self, card: int) -> bool:
        return card_rank(card) == self.wild_rank

    def suit_counts(self) -> list[int]:
        """How many cards of each suit your hand holds (wilds included)."""
        counts = [0, 0, 0, 0]
        for card in self.hand:
            counts[card_suit(card)] += 1
        return counts

    def parse_action(self, text: str) -> EightsAction:
        """Read an action's text (``play 8H name S``); see :meth:`EightsAction.parse`."""
        return EightsAction.parse(text)

    def action_name(self, action: int) -> str:
        return str(EightsAction(action))


def eights_view(request: Any) -> EightsView:
    """Build the view of a ``DecisionRequest`` whose view is ``crazy_eights``."""
    v = request.crazy_eights
    return EightsView(
        decision=_decision(request),
        legal_actions=tuple(map(EightsAction, request.legal.crazy_eights)),
        seat=v.seat, num_players=v.num_players, preset=v.preset, hand_number=v.hand_number, dealer=v.dealer,
        current_player=v.current_player, phase=v.phase, hand=tuple(v.hand), top_card=v.top_card if v.HasField("top_card") else None,
        suit_to_follow=v.suit_to_follow, named_suit=v.named_suit if v.HasField("named_suit") else None,
        pile=tuple(v.pile), stock_size=v.stock_size, hand_sizes=tuple(v.hand_sizes), direction=v.direction,
        pending_draw=v.pending_draw, drawn_this_turn=v.drawn_this_turn,
        drawn_card=v.drawn_card if v.HasField("drawn_card") else None, scores=tuple(v.scores),
        hand_scores=tuple(tuple(h.values) for h in v.hand_scores), personal_scores=tuple(v.personal_scores),
        wild_ranks=tuple(v.wild_ranks), turn=v.turn,
    )


def _decision(request: Any) -> Decision:
    return Decision(
        request_id=request.request_id, decision=request.decision, deadline_ms=request.deadline_ms,
        time_bank_ms=request.time_bank_ms, complete=request.legal.complete,
        events=tuple(Event(e.index, e.kind, e.seat, e.data_json) for e in request.events),
    )


def make_view(request: Any, switches: dict[str, Any] | None = None) -> Any:
    """The typed view of a ``DecisionRequest`` (by game); ``switches`` from the Welcome."""
    which = request.WhichOneof("view")
    if which == "crazy_eights":
        return eights_view(request)
    if which == "crazy_rummy":
        from talon_sdk.rummy_views import rummy_view

        return rummy_view(request, switches)
    raise ValueError(f"the request carries no view this SDK knows ({which!r}); upgrade talon-sdk")


__all__ = [
    "Decision", "EightsAction", "EightsView", "Event", "eights_view", "make_view", "card_name", "parse_card",
]

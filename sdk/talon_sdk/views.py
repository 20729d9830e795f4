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


class Decision:
    """Facts about the decision itself, common to every game (read from the request lazily)."""

    __slots__ = ("_r",)

    def __init__(self, request: Any) -> None:
        self._r = request

    @property
    def request_id(self) -> int:
        return int(self._r.request_id)

    @property
    def decision(self) -> int:
        """Index of this decision in the match (all seats)."""
        return int(self._r.decision)

    @property
    def deadline_ms(self) -> int:
        """Time to answer before the bank is touched."""
        return int(self._r.deadline_ms)

    @property
    def time_bank_ms(self) -> int:
        """What the bank still holds; the hard limit is deadline_ms + time_bank_ms."""
        return int(self._r.time_bank_ms)

    @property
    def complete(self) -> bool:
        """Whether legal_actions lists every legal action."""
        return bool(self._r.legal.complete)

    @property
    def events(self) -> tuple[Event, ...]:
        """Public events since your previous request."""
        return tuple(Event(e.index, e.kind, e.seat, e.data_json) for e in self._r.events)


class EightsView:
    """What your seat knows at a Crazy Eights decision (fields as in ``CrazyEightsView``).

    Read-only, and built lazily from the request: a field costs something only when your bot
    reads it, which keeps the SDK's share of the referee's round trip small.
    """

    __slots__ = ("_r", "_v", "_legal")
    game = "crazy-eights"

    def __init__(self, request: Any) -> None:
        self._r = request
        self._v = request.crazy_eights
        self._legal: tuple[EightsAction, ...] | None = None

    @property
    def decision(self) -> Decision:
        return Decision(self._r)

    @property
    def legal_actions(self) -> tuple[EightsAction, ...]:
        """Every legal action, sorted by code: draw, pass, stop, suit names, then plays."""
        if self._legal is None:
            self._legal = tuple(map(EightsAction, self._r.legal.crazy_eights))
        return self._legal

    seat = property(lambda self: int(self._v.seat), doc="Your seat.")
    num_players = property(lambda self: int(self._v.num_players), doc="Seats in the match.")
    preset = property(lambda self: str(self._v.preset), doc="The rules' preset.")
    hand_number = property(lambda self: int(self._v.hand_number), doc="1-based number of this hand.")
    dealer = property(lambda self: int(self._v.dealer), doc="The seat that dealt this hand.")
    current_player = property(lambda self: int(self._v.current_player), doc="The seat to act (you).")
    phase = property(lambda self: str(self._v.phase), doc="play, name_suit, draw_two, after_draw, multi_play.")
    hand = property(lambda self: tuple(self._v.hand), doc="Your cards, sorted by id.")
    top_card = property(lambda self: self._v.top_card if self._v.HasField("top_card") else None,
                        doc="The top card of the play pile, or None.")
    suit_to_follow = property(lambda self: int(self._v.suit_to_follow), doc="The suit to follow (0..3).")
    named_suit = property(lambda self: self._v.named_suit if self._v.HasField("named_suit") else None,
                          doc="The suit the last wild named, or None.")
    pile = property(lambda self: tuple(self._v.pile), doc="The play pile, bottom to top.")
    stock_size = property(lambda self: int(self._v.stock_size), doc="Cards left in the stock.")
    hand_sizes = property(lambda self: tuple(self._v.hand_sizes), doc="Cards in each seat's hand.")
    direction = property(lambda self: int(self._v.direction), doc="1 or -1.")
    pending_draw = property(lambda self: int(self._v.pending_draw), doc="Cards a draw-two chain makes you draw.")
    drawn_this_turn = property(lambda self: int(self._v.drawn_this_turn), doc="Cards you drew this turn.")
    drawn_card = property(lambda self: self._v.drawn_card if self._v.HasField("drawn_card") else None,
                          doc="The card you just drew, when you may play it at once.")
    scores = property(lambda self: tuple(self._v.scores), doc="Match points per seat.")
    hand_scores = property(lambda self: tuple(tuple(h.values) for h in self._v.hand_scores),
                           doc="Points of each finished hand, per seat.")
    personal_scores = property(lambda self: tuple(self._v.personal_scores), doc="Countdown scores per seat.")
    wild_ranks = property(lambda self: tuple(self._v.wild_ranks), doc="Each seat's wild rank.")
    turn = property(lambda self: int(self._v.turn), doc="1-based number of the current turn in this hand (a turn may hold several decisions).")

    @property
    def plays(self) -> list[EightsAction]:
        """The legal plays (no draw, pass or stop)."""
        return [a for a in self.legal_actions if a >= PLAY]

    @property
    def wild_rank(self) -> int:
        """Your wild rank (8, or your personal rank in Countdown)."""
        ranks = self._v.wild_ranks
        return int(ranks[self._v.seat]) if ranks else 8

    def is_wild(self, card: int) -> bool:
        return card_rank(card) == self.wild_rank

    def suit_counts(self) -> list[int]:
        """How many cards of each suit your hand holds (wilds included)."""
        counts = [0, 0, 0, 0]
        for card in self._v.hand:
            counts[card_suit(card)] += 1
        return counts

    def parse_action(self, text: str) -> EightsAction:
        """Read an action's text (``play 8H name S``); see :meth:`EightsAction.parse`."""
        return EightsAction.parse(text)

    def action_name(self, action: int) -> str:
        return str(EightsAction(action))

    def __repr__(self) -> str:
        return f"EightsView(seat={self.seat}, phase={self.phase!r}, hand={self.hand}, top_card={self.top_card})"


def eights_view(request: Any) -> EightsView:
    """Build the view of a ``DecisionRequest`` whose view is ``crazy_eights``."""
    return EightsView(request)


def _decision(request: Any) -> Decision:
    return Decision(request)


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

"""Crazy Eights actions: one small int each, with paired text and JSON forms.

Action-id layout (stable; the wire contract and bot authors rely on it)::

    0            DRAW       draw a card (or, facing a draw-two chain, take the penalty)
    1            PASS       end the turn without playing (when the rules allow it)
    2            STOP       end a multi-card play (switch multi_card_play)
    4 + suit     NAME_SUIT  the dealer names a suit for a wild upcard (upcard_eight = dealer_names)
    64 + (card << 4) + (named << 1) + announce
                 PLAY       play ``card`` (0..51); ``named`` is the suit a wild names
                            (0..3) or 4 for none; ``announce`` is the "last card" flag

Text forms: ``draw``, ``pass``, ``stop``, ``name H``, ``play 7C``, ``play 8H name S``,
``play 7C last``, ``play 8H name S last``. Ids sort in that order: draw, pass, stop, the suit
names, then plays by card.
"""

from __future__ import annotations

from referee.cards import card_name, parse_card, parse_suit, suit_name
from referee.games.base import IllegalActionError, shown

DRAW = 0
PASS = 1
STOP = 2
NAME_SUIT = 4
PLAY = 64
NO_SUIT = 4


def play_action(card: int, named: int = NO_SUIT, announce: bool = False) -> int:
    """The id of playing ``card`` naming suit ``named`` (``NO_SUIT``: none)."""
    return PLAY + (card << 4) + (named << 1) + int(announce)


def name_suit_action(suit: int) -> int:
    return NAME_SUIT + suit


def is_play(action: int) -> bool:
    return action >= PLAY


def play_parts(action: int) -> tuple[int, int, bool]:
    """``(card, named, announce)`` of a play id."""
    x = action - PLAY
    return x >> 4, (x >> 1) & 7, bool(x & 1)


def is_valid_id(action: object) -> bool:
    """Whether ``action`` is an id of the layout above (legal or not)."""
    if not isinstance(action, int) or isinstance(action, bool):
        return False
    if action in (DRAW, PASS, STOP) or NAME_SUIT <= action < NAME_SUIT + 4:
        return True
    if action < PLAY:
        return False
    card, named, _ = play_parts(action)
    return card < 52 and named <= NO_SUIT


def action_name(action: int) -> str:
    """The text form of an action id."""
    if action == DRAW:
        return "draw"
    if action == PASS:
        return "pass"
    if action == STOP:
        return "stop"
    if NAME_SUIT <= action < NAME_SUIT + 4:
        return "name " + suit_name(action - NAME_SUIT)
    if not is_valid_id(action):
        raise IllegalActionError(f"{action!r} is not a Crazy Eights action id", action)
    card, named, announce = play_parts(action)
    text = "play " + card_name(card)
    if named != NO_SUIT:
        text += " name " + suit_name(named)
    return text + (" last" if announce else "")


def parse_action(text: str) -> int:
    """Read an action's text form; raise :class:`IllegalActionError` naming the forms."""
    words = text.strip().split()
    forms = "draw, pass, stop, name H, play 7C, play 8H name S, play 7C last"
    try:
        if words in (["draw"], ["pass"], ["stop"]):
            return {"draw": DRAW, "pass": PASS, "stop": STOP}[words[0]]
        if len(words) == 2 and words[0] == "name":
            return name_suit_action(parse_suit(words[1]))
        if len(words) >= 2 and words[0] == "play":
            card = parse_card(words[1])
            rest = words[2:]
            announce = bool(rest) and rest[-1] == "last"
            if announce:
                rest = rest[:-1]
            named = NO_SUIT
            if len(rest) == 2 and rest[0] == "name":
                named = parse_suit(rest[1])
            elif rest:
                raise ValueError(" ".join(rest))
            return play_action(card, named, announce)
    except ValueError as err:
        raise IllegalActionError(f"cannot read action {shown(text)} ({err}); forms: {forms}", text) from None
    raise IllegalActionError(f"cannot read action {shown(text)}; forms: {forms}", text)

"""Crazy Rummy actions: one :class:`RummyAction` tuple per decision, with text and JSON forms.

Why a tuple and not an int: a meld carries any number of cards, each with its declared meaning
(spec section A.3 rule 10 [ENGINE DECISION]), so no small id can hold it. A ``NamedTuple`` of
ints and int tuples is hashable and totally ordered, so lists of actions sort.

Layout (stable; bot authors rely on it)::

    RummyAction(kind, cards, meanings, target)

    kind  name          cards                  meanings                  target
    0     draw_stock    ()                     ()                        -1
    1     draw_discard  ()                     ()                        -1
    2     meld_set      the cards, from hand   the rank of each card     -1
    3     meld_run      the cards, from hand   the card each stands for  -1
    4     lay_off_set   (card,)                (rank,)                   meld index (a set)
    5     lay_off_run   (card,)                (card it stands for,)     meld index (a run)
    6     exchange      (natural, wild)        ()                        meld index
    7     end_table     ()                     ()                        -1
    8     discard       (card,)                ()                        -1

Cards are ids (``suit * 13 + rank - 1``, see :mod:`talon_sdk.cards`). In a run the meaning is
the card id the card stands for; in a set it is the set's rank (1 = Ace .. 13 = King). A
natural's meaning is itself (its id in a run, its rank in a set); a wild's is what it is
declared to be. Sets and runs have their own meld and lay-off kinds because a rank and a card
id overlap as numbers. A lay-off carries one card and its meaning; several cards are laid off
one action at a time. An exchange names the natural card from the hand and the wild it frees from
meld ``target``. Meld indexes count the melds of the deal in the order they were laid down (the
``melds`` list of the view). The cards of a meld may come in any order; the engine keeps runs in
rank order and sets naturals first.

Text forms (case-insensitive)::

    draw stock | draw discard | end table | discard 7H
    meld set 7C 7D 2H*=7          a wild is written CARD*=MEANING (a rank for a set)
    meld run 5H 6H 2C*=7H         a card without "=" stands for itself
    lay off 8H on run 2 | lay off 2C*=9H on run 2 | lay off 7S on set 0 | lay off 2C*=7 on set 0
    exchange 7H for 2C on meld 2

JSON: ``{"kind": "meld_run", "cards": [...], "meanings": [...], "target": -1}`` with card ids
(card names such as ``"7H"`` are read too).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from referee.games.base import IllegalActionError, shown
from talon_sdk.cards import (
    CardError,
    card_name,
    card_rank,
    parse_card,
    parse_rank,
    rank_name,
)

(DRAW_STOCK, DRAW_DISCARD, MELD_SET, MELD_RUN, LAY_OFF_SET, LAY_OFF_RUN, EXCHANGE, END_TABLE,
 DISCARD) = range(9)
KIND_NAMES = (
    "draw_stock", "draw_discard", "meld_set", "meld_run", "lay_off_set", "lay_off_run",
    "exchange", "end_table", "discard",
)
SET_KINDS = frozenset((MELD_SET, LAY_OFF_SET))
"""Kinds whose meanings are ranks; every other meaning is a card id."""
FORMS = ("draw stock | draw discard | meld set 7C 7D 2H*=7 | meld run 5H 6H 2C*=7H | "
         "lay off 8H on run 2 | lay off 2C*=7 on set 0 | exchange 7H for 2C on meld 2 | "
         "end table | discard 7H")


class ActionFormatError(IllegalActionError):
    """Text or JSON that is not a Crazy Rummy action at all."""


class RummyAction(NamedTuple):
    """One decision; see the module docstring for the layout."""

    kind: int
    cards: tuple[int, ...] = ()
    meanings: tuple[int, ...] = ()
    target: int = -1


def draw_stock() -> RummyAction:
    return RummyAction(DRAW_STOCK)


def draw_discard() -> RummyAction:
    return RummyAction(DRAW_DISCARD)


def meld_set(cards: Iterable[int], meanings: Iterable[int]) -> RummyAction:
    return RummyAction(MELD_SET, tuple(cards), tuple(meanings))


def meld_run(cards: Iterable[int], meanings: Iterable[int]) -> RummyAction:
    return RummyAction(MELD_RUN, tuple(cards), tuple(meanings))


def lay_off_set(card: int, rank: int, meld: int) -> RummyAction:
    return RummyAction(LAY_OFF_SET, (card,), (rank,), meld)


def lay_off_run(card: int, meaning: int, meld: int) -> RummyAction:
    return RummyAction(LAY_OFF_RUN, (card,), (meaning,), meld)


def exchange(natural: int, wild: int, meld: int) -> RummyAction:
    return RummyAction(EXCHANGE, (natural, wild), (), meld)


def end_table() -> RummyAction:
    return RummyAction(END_TABLE)


def discard(card: int) -> RummyAction:
    return RummyAction(DISCARD, (card,))


def check_shape(action: object) -> RummyAction:
    """``action`` as a :class:`RummyAction` if its fields have the layout's shape.

    Shape only (types, lengths, id ranges); legality is the state's business. The target of a
    kind that has none is read as -1.
    """
    if not isinstance(action, tuple) or len(action) != 4:
        raise ActionFormatError(f"{action!r} is not a Crazy Rummy action: {FORMS}", action)
    kind, cards, meanings, target = action
    if not _is_int(kind) or not 0 <= kind < len(KIND_NAMES):
        raise ActionFormatError(f"unknown action kind {kind!r}: kinds are 0 to 8", action)
    if not _int_tuple(cards) or not _int_tuple(meanings) or not _is_int(target):
        raise ActionFormatError(
            f"{action!r} is malformed: cards and meanings are tuples of ints, target an int", action
        )
    if any(not 0 <= c < 52 for c in cards):
        raise ActionFormatError(f"{action!r} names a card id outside 0..51", action)
    shape = _SHAPES.get(kind, (0, 0))
    if shape is None:
        if len(meanings) != len(cards):
            raise ActionFormatError(
                f"a meld needs one meaning per card: {len(cards)} cards, {len(meanings)} "
                f"meanings", action
            )
    elif (len(cards), len(meanings)) != shape:
        raise ActionFormatError(
            f"a {KIND_NAMES[kind]} action has {shape[0]} card(s) and {shape[1]} meaning(s), "
            f"not {len(cards)} and {len(meanings)}", action
        )
    if kind not in (LAY_OFF_SET, LAY_OFF_RUN, EXCHANGE):
        target = -1  # lenient on a field the kind does not use (a proto's unset int is 0)
    return RummyAction(kind, cards, meanings, target)


_SHAPES: dict[int, tuple[int, int] | None] = {
    MELD_SET: None, MELD_RUN: None, LAY_OFF_SET: (1, 1), LAY_OFF_RUN: (1, 1), EXCHANGE: (2, 0),
    DISCARD: (1, 0),
}
"""(cards, meanings) per kind; None: any number of cards, one meaning each; absent: none."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_tuple(value: object) -> bool:
    return isinstance(value, tuple) and all(_is_int(v) for v in value)


# --- text -----------------------------------------------------------------------------------------


def _card_text(card: int, meaning: int, run: bool, wild_rank: int | None) -> str:
    own = card if run else card_rank(card)
    wild = wild_rank is not None and card_rank(card) == wild_rank
    if meaning == own and not wild:
        return card_name(card)
    if run:  # a meaning that is no card is illegal, but the action still has a name (apply says why)
        shown = card_name(meaning) if 0 <= meaning < 52 else str(meaning)
    else:
        shown = rank_name(meaning) if 1 <= meaning <= 13 else str(meaning)
    return f"{card_name(card)}*={shown}"


def action_name(action: RummyAction, wild_rank: int | None = None) -> str:
    """The text form of ``action``; with ``wild_rank`` every wild is marked ``*=``."""
    a = check_shape(action)
    if a.kind in (DRAW_STOCK, DRAW_DISCARD):
        return "draw " + ("stock" if a.kind == DRAW_STOCK else "discard")
    if a.kind == END_TABLE:
        return "end table"
    if a.kind == DISCARD:
        return "discard " + card_name(a.cards[0])
    if a.kind == EXCHANGE:
        return f"exchange {card_name(a.cards[0])} for {card_name(a.cards[1])} on meld {a.target}"
    run = a.kind not in SET_KINDS
    parts = " ".join(_card_text(c, m, run, wild_rank) for c, m in zip(a.cards, a.meanings))
    if a.kind in (LAY_OFF_SET, LAY_OFF_RUN):
        return f"lay off {parts} on {'run' if run else 'set'} {a.target}"
    return ("meld run " if run else "meld set ") + parts


def parse_action(text: str, meld_kinds: Sequence[int] = ()) -> RummyAction:
    """Read an action's text form; raise :class:`ActionFormatError` naming the forms.

    With ``meld_kinds`` (the kind of each table meld, 0 = set, 1 = run) a lay-off may also be
    written ``lay off 8H on meld 2``: the table says whether meld 2 is a set or a run.
    """
    words = text.strip().lower().replace(",", " ").split()
    if (len(words) == 6 and words[:2] == ["lay", "off"] and words[3:5] == ["on", "meld"]
            and _is_index(words[5]) and int(words[5]) < len(meld_kinds)):
        words[4] = "set" if meld_kinds[int(words[5])] == 0 else "run"
    try:
        return _parse_words(words)
    except (CardError, ValueError, IndexError) as err:
        if isinstance(err, ActionFormatError):
            raise
        raise ActionFormatError(f"cannot read action {shown(text)} ({err}); forms: {FORMS}", text) from None


def _is_index(word: str) -> bool:
    """Plain ASCII digits, few of them (``'²'.isdigit()`` is true, and ``int()`` of thousands of
    digits raises)."""
    return word.isascii() and word.isdigit() and len(word) <= 6


def _parse_words(words: list[str]) -> RummyAction:
    head = words[:2]
    if words in (["draw", "stock"], ["draw", "discard"]):
        return RummyAction(DRAW_STOCK if words[1] == "stock" else DRAW_DISCARD)
    if words in (["end", "table"], ["end"]):
        return RummyAction(END_TABLE)
    if len(words) == 2 and words[0] == "discard":
        return RummyAction(DISCARD, (parse_card(words[1]),))
    if head in (["meld", "set"], ["meld", "run"]) and len(words) > 2:
        run = words[1] == "run"
        pairs = [_parse_card_meaning(w, run) for w in words[2:]]
        return RummyAction(MELD_RUN if run else MELD_SET, tuple(c for c, _ in pairs),
                           tuple(m for _, m in pairs))
    if head == ["lay", "off"] and len(words) == 6 and words[3] == "on" and words[4] in ("set", "run"):
        run = words[4] == "run"
        card, meaning = _parse_card_meaning(words[2], run)
        return RummyAction(LAY_OFF_RUN if run else LAY_OFF_SET, (card,), (meaning,),
                           _parse_index(words[5]))
    if head == ["lay", "off"] and words[3:5] == ["on", "meld"]:
        raise ValueError("write 'on set N' or 'on run N': a set takes a rank, a run a card")
    if words[:1] == ["exchange"] and len(words) == 7 and words[2] == "for" and words[4:6] == ["on", "meld"]:
        return RummyAction(EXCHANGE, (parse_card(words[1]), parse_card(words[3])), (),
                           _parse_index(words[6]))
    raise ValueError("unknown form")


def _parse_index(word: str) -> int:
    if not _is_index(word):
        raise ValueError(f"meld index {shown(word)} is not a number")
    return int(word)


def _parse_card_meaning(word: str, run: bool) -> tuple[int, int]:
    card_text, _, meaning_text = word.partition("=")
    card = parse_card(card_text.rstrip("*"))
    if not meaning_text:
        return card, card if run else card_rank(card)
    return card, parse_card(meaning_text) if run else parse_rank(meaning_text)


# --- JSON -----------------------------------------------------------------------------------------


def action_to_json(action: RummyAction) -> dict[str, Any]:
    """The JSON form: ``{"kind", "cards", "meanings", "target"}`` with ints."""
    a = check_shape(action)
    return {"kind": KIND_NAMES[a.kind], "cards": list(a.cards), "meanings": list(a.meanings),
            "target": a.target}


def action_from_json(data: Any) -> RummyAction:
    """Read the JSON form (card names are accepted where ids are expected)."""
    if not isinstance(data, dict):
        raise ActionFormatError(f"an action is a JSON object, not {data!r}", data)
    kind = data.get("kind")
    if isinstance(kind, str) and kind in KIND_NAMES:
        kind = KIND_NAMES.index(kind)
    if not _is_int(kind):
        raise ActionFormatError(f"unknown action kind {kind!r}; kinds: {', '.join(KIND_NAMES)}", data)
    try:
        cards = _json_ints(data.get("cards", []), parse_card)
        reader = parse_rank if kind in SET_KINDS else parse_card
        meanings = _json_ints(data.get("meanings", []), reader)
    except (CardError, TypeError) as err:
        raise ActionFormatError(f"cannot read action {shown(data)}: {err}", data) from None
    target = data.get("target", -1)
    return check_shape((kind, cards, meanings, target))


def _json_ints(values: Any, reader: Any) -> tuple[int, ...]:
    if not isinstance(values, Sequence) or isinstance(values, str):
        raise TypeError(f"{values!r} is not a list")
    return tuple(reader(v) if isinstance(v, str) else v for v in values)

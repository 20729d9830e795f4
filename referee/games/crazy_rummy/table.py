"""The table phase of a Crazy Rummy turn: checking and listing melds, lay-offs and exchanges.

Why a module of its own: the table phase is where the engine cannot list every legal action
(spec section 2 rule 3), so it has two jobs that must agree. :func:`plan_table_action` decides
whether any proposed action is legal and computes its result without touching the state (an
illegal action never mutates anything); :func:`list_table_actions` lists a canonical finite
subset built from the SDK's meld finder, filtered by the same turn rules.

Turn rules checked here (spec A.3 rules 12-18, with the engine's decisions):

* opening (rule 13): lay-offs and exchanges need a meld of one's own laid earlier in the deal;
* the final discard (rule 17): no table action may leave the hand empty;
* exchanges (rule 14) only after drawing, so never on the first turn of a deal, and never on a
  one-card turn (rule 18 [ENGINE DECISION]);
* the one-card turn (rule 18): only one lay-off, after which the turn moves to the discard;
* ``discard_take_must_meld``: the card taken from the discard pile must be the next card put on
  the table, by a meld holding it or a lay-off (an exchange does not count) [ENGINE DECISION];
* ``reclaimed_wild_must_be_used``: the wild taken by an exchange must go back on the table in
  the same turn (a meld holding it, or a lay-off), before ``end_table``; other table actions
  may come first. So that a turn never reaches a dead end, an exchange, and any table action
  taken while the wild is still in hand, is refused unless the wild could still be placed
  after it (a meld on the table with room, or a new meld the hand can make with it, and a card
  left to discard); one reclaimed wild at a time: no second exchange before the first wild is
  placed [ENGINE DECISION];
* ``may_discard_card_just_taken = off``: no table action may leave the hand holding only the
  card just taken from the discard pile, since it could then not discard.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.games.base import IllegalActionError
from referee.games.crazy_rummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    END_TABLE,
    EXCHANGE,
    KIND_NAMES,
    LAY_OFF_RUN,
    LAY_OFF_SET,
    MELD_RUN,
    MELD_SET,
    RummyAction,
)
from talon_sdk.cards import card_name
from talon_sdk.melds import (
    RUN,
    SET,
    Meld,
    MeldError,
    exchange,
    find_exchanges,
    find_lay_offs,
    find_melds,
    lay_off,
    make_meld,
    room,
)

if TYPE_CHECKING:
    from referee.games.crazy_rummy.state import CrazyRummyState

MUST_TAKEN = "taken"
MUST_RECLAIMED = "reclaimed"


@dataclasses.dataclass(frozen=True)
class TablePlan:
    """The result of a legal table action, to be committed by the state.

    ``meld_index`` is the meld replaced (``-1``: ``meld`` is appended); ``placed`` the cards put
    on the table from the hand; ``must_place`` the obligation the action creates (``-1``:
    none); ``gained`` the wild an exchange brings into the hand (``-1``: none).
    """

    hand: list[int]
    meld: Meld
    meld_index: int
    event: str
    event_data: dict[str, object]
    placed: tuple[int, ...]
    opens: bool = False
    must_place: int = -1
    gained: int = -1


def _illegal(reason: str, action: object) -> IllegalActionError:
    return IllegalActionError("illegal: " + reason, action)


def take_cards(hand: Sequence[int], cards: Sequence[int], action: object) -> list[int]:
    """``hand`` without ``cards``, or the error naming a card the hand does not hold."""
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            held = hand.count(card)
            why = f"you do not hold {card_name(card)}" if not held else (
                f"you hold only {held} {card_name(card)} but the action uses it "
                f"{list(cards).count(card)} times")
            raise _illegal(why, action) from None
    return rest


def discard_possible(state: CrazyRummyState, hand: Sequence[int], placed: Sequence[int]) -> bool:
    """Whether a hand left by a table action still holds a card the player may discard."""
    if state.rules.may_discard_card_just_taken or not state._taken_in_hand:
        return True
    if state._drawn in placed:
        return True
    return any(c != state._drawn for c in hand) or hand.count(state._drawn) > 1


def plan_table_action(state: CrazyRummyState, action: RummyAction) -> TablePlan:
    """Check a meld, lay-off or exchange for the current player and compute its result."""
    kind = action.kind
    if kind in (MELD_SET, MELD_RUN):
        plan = _plan_meld(state, action)
    elif kind in (LAY_OFF_SET, LAY_OFF_RUN):
        plan = _plan_lay_off(state, action)
    else:
        plan = _plan_exchange(state, action)
    if not plan.hand:
        what = {MELD_SET: "meld", MELD_RUN: "meld", EXCHANGE: "exchange"}.get(kind, "lay-off")
        raise _illegal(
            f"a final discard is always required: this {what} would leave your hand empty", action
        )
    must = state._must_place
    if must >= 0 and must not in plan.placed:
        if kind == EXCHANGE or state._must_why == MUST_TAKEN:
            raise _illegal(must_text(state), action)
        stuck = _wild_stuck(state, _melds_after(state, plan), plan.hand, must)
        if stuck:
            raise _illegal(f"{must_text(state)}; after this action it could not: {stuck}", action)
    if not discard_possible(state, plan.hand, plan.placed):
        raise _illegal(
            f"this would leave you only {card_name(state._drawn)}, the card you took from the "
            f"discard pile, which you may not discard (may_discard_card_just_taken = off)", action
        )
    return plan


def must_text(state: CrazyRummyState) -> str:
    card = card_name(state._must_place)
    if state._must_why == MUST_TAKEN:
        return (f"{card}, taken from the discard pile, must go on the table first "
                f"(discard_take_must_meld = on): meld it or lay it off")
    return (f"{card}, the wild you took by exchange, must go back on the table this turn "
            f"(reclaimed_wild_must_be_used = on): meld it or lay it off")


def _one_card_guard(state: CrazyRummyState, action: RummyAction, what: str) -> None:
    if state._one_card:
        raise _illegal(
            f"you began this turn holding one card: the only table action allowed is a single "
            f"lay-off that lets you go out, not {what}", action
        )


def _plan_meld(state: CrazyRummyState, action: RummyAction) -> TablePlan:
    _one_card_guard(state, action, "a meld")
    hand = take_cards(state.hand(state._cur), action.cards, action)
    kind = SET if action.kind == MELD_SET else RUN
    try:
        meld = make_meld(kind, action.cards, action.meanings, state._meld_rules, state._cur)
    except MeldError as err:
        raise _illegal(str(err), action) from None
    data: dict[str, object] = {"meld": len(state._melds), "kind": "set" if kind == SET else "run",
                               "cards": list(meld.cards), "meanings": list(meld.meanings)}
    return TablePlan(hand, meld, -1, "meld", data, meld.cards, opens=True)


def _target(state: CrazyRummyState, action: RummyAction) -> Meld:
    count = len(state._melds)
    if not 0 <= action.target < count:
        where = f"melds are numbered 0 to {count - 1}" if count else "the table has no melds yet"
        raise _illegal(f"there is no meld {action.target} on the table ({where})", action)
    return state._melds[action.target]


def _require_opened(state: CrazyRummyState, action: RummyAction, what: str) -> None:
    if not state._opened[state._cur]:
        raise _illegal(
            f"you have not opened yet: lay down a meld of your own before {what}", action
        )


def _plan_lay_off(state: CrazyRummyState, action: RummyAction) -> TablePlan:
    _require_opened(state, action, "laying off")
    meld = _target(state, action)
    if (meld.kind == SET) != (action.kind == LAY_OFF_SET):
        right = "set" if meld.kind == SET else "run"
        raise _illegal(
            f"meld {action.target} is a {right}: lay off onto it with lay_off_{right} "
            f"(text: lay off CARD on {right} {action.target})", action
        )
    card, meaning = action.cards[0], action.meanings[0]
    hand = take_cards(state.hand(state._cur), (card,), action)
    try:
        new = lay_off(meld, card, meaning, state._meld_rules)
    except MeldError as err:
        raise _illegal(str(err), action) from None
    data: dict[str, object] = {"meld": action.target, "card": card, "meaning": meaning}
    return TablePlan(hand, new, action.target, "lay_off", data, (card,))


def _plan_exchange(state: CrazyRummyState, action: RummyAction) -> TablePlan:
    _one_card_guard(state, action, "a wild exchange")
    if state._drawn < 0:
        raise _illegal(
            "a wild can only be exchanged after drawing, so not on the first turn of a deal",
            action,
        )
    _require_opened(state, action, "exchanging a wild")
    meld = _target(state, action)
    natural, wild = action.cards
    hand = take_cards(state.hand(state._cur), (natural,), action)
    try:
        new = exchange(meld, natural, wild, state._meld_rules)
    except MeldError as err:
        raise _illegal(str(err), action) from None
    hand.append(wild)
    hand.sort()
    data: dict[str, object] = {"meld": action.target, "card": natural, "wild": wild}
    must = -1
    if state.rules.reclaimed_wild_must_be_used:
        _check_reclaim_room(state, action, hand, new, wild)
        must = wild
    return TablePlan(hand, new, action.target, "exchange", data, (natural,), must_place=must,
                     gained=wild)


def _check_reclaim_room(state: CrazyRummyState, action: RummyAction, hand: list[int],
                        new: Meld, wild: int) -> None:
    """Refuse an exchange whose wild could not go back on the table this turn (no dead end)."""
    melds = list(state._melds)
    melds[action.target] = new
    stuck = _wild_stuck(state, melds, hand, wild)
    if stuck:
        raise _illegal(f"with reclaimed_wild_must_be_used = on the wild must go back on the table this "
                       f"turn, and {card_name(wild)} could not: {stuck}", action)


def _melds_after(state: CrazyRummyState, plan: TablePlan) -> list[Meld]:
    melds = list(state._melds)
    if plan.meld_index < 0:
        melds.append(plan.meld)
    else:
        melds[plan.meld_index] = plan.meld
    return melds


def _wild_stuck(state: CrazyRummyState, melds: Sequence[Meld], hand: list[int], wild: int) -> str:
    """Why ``wild`` (in ``hand``) could not go on the table next, in words; empty if it could:
    laid off on a meld with room, or in a new meld the hand can make with it, either way
    leaving a card the player may discard."""
    rest = list(hand)
    rest.remove(wild)
    if not rest:
        return "you would have no card left to discard"
    rules = state._meld_rules
    if any(room(m, rules) > 0 for m in melds) and discard_possible(state, rest, (wild,)):
        return ""
    for meld in find_melds(hand, rules, leave=1, must_include=wild):
        left = list(hand)
        for card in meld.cards:
            left.remove(card)
        if discard_possible(state, left, meld.cards):
            return ""
    if not discard_possible(state, rest, (wild,)):
        return "you would be left only the card you may not discard"
    return "no meld on the table has room for it, and the hand makes no new meld with it"


def can_place(state: CrazyRummyState, card: int) -> bool:
    """Whether ``card``, once taken from the discard pile, could go on the table straight away
    (``discard_take_must_meld``): a meld holding it, or a lay-off once opened."""
    if not state._table_allowed():
        return False
    hand = state.hand(state._cur) + [card]
    if find_melds(hand, state._meld_rules, leave=1, must_include=card):
        return True
    return state._opened[state._cur] and any(
        lay.card == card for lay in find_lay_offs(hand, state._melds, state._meld_rules))


def list_table_actions(state: CrazyRummyState) -> list[RummyAction]:
    """END_TABLE (unless a card must be placed first) and a canonical set of table actions."""
    hand = state.hand(state._cur)
    rules = state._meld_rules
    must = state._must_place
    found: set[RummyAction] = set()
    if must < 0:
        found.add(RummyAction(END_TABLE))
    # a reclaimed wild may wait while other cards go down (each checked to leave it a place);
    # a card taken from the discard pile must be the next one placed
    only = must if must >= 0 and state._must_why == MUST_TAKEN else None
    opened = state._opened[state._cur]
    if not state._one_card:
        for meld in find_melds(hand, rules, leave=1, must_include=only):
            kind = MELD_SET if meld.kind == SET else MELD_RUN
            found.add(RummyAction(kind, meld.cards, meld.meanings))
    if opened:
        for lay in find_lay_offs(hand, state._melds, rules, leave=1):
            if only is None or lay.card == only:
                kind = LAY_OFF_SET if state._melds[lay.meld].kind == SET else LAY_OFF_RUN
                found.add(RummyAction(kind, (lay.card,), (lay.meaning,), lay.meld))
    if opened and must < 0 and state._drawn >= 0 and not state._one_card:
        for ex in find_exchanges(hand, state._melds, rules):
            found.add(RummyAction(EXCHANGE, (ex.natural, ex.wild), (), ex.meld))
    return sorted(a for a in found if _passes_turn_rules(state, a))


def _passes_turn_rules(state: CrazyRummyState, action: RummyAction) -> bool:
    """The cheap turn-level filters the finder does not know (the finder's melds are valid)."""
    if action.kind == END_TABLE:
        return True
    must = state._must_place
    if (state.rules.reclaimed_wild_must_be_used and action.kind == EXCHANGE) or (
            must >= 0 and must not in action.cards):
        try:
            plan_table_action(state, action)
        except IllegalActionError:
            return False
        return True
    if state.rules.may_discard_card_just_taken or not state._taken_in_hand:
        return True
    hand = list(state.hand(state._cur))
    for card in action.cards[:1] if action.kind == EXCHANGE else action.cards:
        hand.remove(card)
    if action.kind == EXCHANGE:
        hand.append(action.cards[1])
    placed = action.cards[:1] if action.kind == EXCHANGE else action.cards
    return discard_possible(state, hand, placed)


def wrong_phase_reason(state: CrazyRummyState, action: RummyAction) -> str:
    """Why ``action`` does not fit the phase of the turn, naming what does."""
    kind = KIND_NAMES[action.kind]
    drawing = action.kind in (DRAW_STOCK, DRAW_DISCARD)
    drawn = ("you have already drawn this turn" if state._drawn >= 0
             else "the first turn of a deal has no draw")
    if state.phase == "draw":
        return f"illegal: {kind} in the draw phase: draw first (draw stock or draw discard)"
    if state.phase == "table":
        if drawing:
            return f"illegal: {drawn}; meld, lay off, exchange or end table"
        return "illegal: end the table phase (end table) before you discard"
    if drawing:
        return f"illegal: {drawn}; discard one card"
    return "illegal: the table phase is over (or not open to you this turn); discard one card"

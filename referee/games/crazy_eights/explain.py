"""Why an action is illegal, in words a bot author understands.

Only called on the slow path (an action that is not in the legal list), so it may take its
time to find the most useful reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.cards import NUM_CARDS, card_name, card_rank, card_suit, rank_name, suit_name
from referee.games.crazy_eights import actions as A

if TYPE_CHECKING:
    from referee.games.crazy_eights.state import CrazyEightsState


def explain_illegal(state: CrazyEightsState, action: object) -> str:
    """The reason ``action`` is not legal for the current player of ``state``."""
    from referee.games.crazy_eights.table import P_AFTER_DRAW, P_DRAW_TWO, P_MULTI, P_NAME_SUIT, P_OVER

    if state._phase == P_OVER:
        return "illegal: the match is over"
    if type(action) is not int or not A.is_valid_id(action):
        return f"illegal: {action!r} is not a Crazy Eights action (see the action-id layout)"
    phase = state._phase
    legal = ", ".join(A.action_name(a) for a in state.legal_actions()[:12])
    if phase == P_NAME_SUIT:
        return f"illegal: the upcard is wild and you deal: name a suit first ({legal})"
    if A.NAME_SUIT <= action < A.NAME_SUIT + 4:
        return "illegal: a suit is named with the play itself, like 'play 8H name S'"
    if action == A.STOP:
        return "illegal: 'stop' ends a multi-card play, and you have not started one"
    if phase == P_MULTI and not A.is_play(action):
        return f"illegal: you are playing several {rank_name(card_rank(state._top))}s: play another or stop"
    if action == A.DRAW:
        return "illegal: " + _why_no_draw(state)
    if action == A.PASS:
        return "illegal: " + _why_no_pass(state)
    card, named, announce = A.play_parts(action)
    return "illegal: " + _why_no_play(state, card, named, announce, phase == P_DRAW_TWO,
                                      phase == P_AFTER_DRAW, phase == P_MULTI)


def _why_no_draw(state: CrazyEightsState) -> str:
    from referee.games.crazy_eights.table import P_AFTER_DRAW

    rules = state.rules
    if state._phase == P_AFTER_DRAW:
        return "you already drew this turn (draw_mode = one_may_play): play the drawn card or pass"
    if not state._can_get_card():
        then = "pass" if A.PASS in state.legal_actions() else "play a card"
        return f"no card can be drawn: the stock is empty (stock_empty = {rules.stock_empty}); {then}"
    if state._play_mask(state._cur) and not rules.may_draw_when_able_to_play:
        return "you can play, so you must (may_draw_when_able_to_play = off)"
    if rules.draw_mode == "up_to_n":
        return f"you have drawn {state._drawn} cards this turn, the most allowed (draw_limit = {rules.draw_limit})"
    return f"you have already drawn this turn (draw_mode = {rules.draw_mode})"


def _why_no_pass(state: CrazyEightsState) -> str:
    from referee.games.crazy_eights.table import P_DRAW_TWO

    if state._phase == P_DRAW_TWO:
        return f"a draw-two chain of {state._pending} is on you: play a {rank_name(state._d2)} or draw the penalty"
    if A.DRAW in state.legal_actions():
        return "you may not pass while you can draw"
    return "you can play, so you must (may_draw_when_able_to_play = off)"


def _why_no_play(state: CrazyEightsState, card: int, named: int, announce: bool,
                 draw_two: bool, after_draw: bool, multi: bool) -> str:
    p = state._cur
    hand = state._hands[p]
    name = card_name(card)
    if not (hand | (hand >> NUM_CARDS)) >> card & 1:
        return f"you hold no {name}"
    if draw_two and state.rules.must_finish_on_eight and hand.bit_count() == 1:
        return (f"you may go out only on a {rank_name(state._wild_rank_of(p))} (must_finish_on_eight = on): "
                f"draw the penalty of {state._pending}")
    if draw_two:
        need = rank_name(state._d2) + (f" of {suit_name(state._follow)}" if state._top_wild else "")
        return f"a draw-two chain of {state._pending} is on you: play a {need} or draw the penalty"
    if after_draw and card != state._drawn_card:
        return f"after drawing you may play only the card you drew ({card_name(state._drawn_card)})"
    if multi and card_rank(card) != card_rank(state._top):
        return f"a multi-card play continues only with another {rank_name(card_rank(state._top))}"
    if not multi and not state._play_mask(p) >> card & 1:
        return _why_no_match(state, card)
    wild = card_rank(card) == state._wild_rank_of(p)
    naming = state.rules.eight_names_suit
    if named != A.NO_SUIT and not wild:
        return f"{name} is not wild: only a {rank_name(state._wild_rank_of(p))} names a suit"
    if wild and named == A.NO_SUIT and naming in ("on", "only_if_matching"):
        return f"{name} is wild: name a suit, like 'play {name} name {suit_name(card_suit(card))}'"
    if wild and named != A.NO_SUIT and naming == "off":
        return f"a wild names no suit here (eight_names_suit = off): play it as 'play {name}'"
    if wild and naming == "only_if_matching" and named != card_suit(card):
        return f"{name} did not follow the top card, so it may name only its own suit {suit_name(card_suit(card))}"
    if announce:
        if not state.rules.last_card_penalty:
            return "these rules have no last-card announcement: drop 'last'"
        return "'last' announces a play that leaves you exactly one card"
    return f"{name} cannot be played now"


def _why_no_match(state: CrazyEightsState, card: int) -> str:
    p = state._cur
    name = card_name(card)
    top_rank = rank_name(card_rank(state._top))
    if state.rules.must_finish_on_eight and state._hands[p].bit_count() == 1:
        return f"you may go out only on a {rank_name(state._wild_rank_of(p))} (must_finish_on_eight = on)"
    if state._top_wild:
        return (f"{name} is neither of the named suit {suit_name(state._follow)} "
                f"nor your wild rank {rank_name(state._wild_rank_of(p))}")
    if card_rank(card) == state._wild_rank_of(p) and state.rules.eight_must_match:
        return f"{name} is wild but must itself follow the suit {suit_name(state._follow)} or the rank {top_rank} (eight_must_match = on)"
    return f"{name} matches neither the suit {suit_name(state._follow)} nor the rank {top_rank}"

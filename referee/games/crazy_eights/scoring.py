"""Hand scoring and the end of a Crazy Eights match (spec B.2 rules 11-12, B.4, section 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.games.base import shared_places

if TYPE_CHECKING:
    from referee.games.crazy_eights.table import Table


def hand_points(values: list[int], winner: int, mode: str) -> list[int]:
    """Points each seat scores for a hand, from the values left in hand.

    ``winner`` is the seat that went out, or -1 for a blocked hand. Under ``penalty`` each seat
    adds its own hand (the winner 0). Under ``winner_collects`` the winner collects every other
    hand; in a blocked hand each lowest hand collects from every higher hand the difference
    (tied lowest hands pay each other nothing).
    """
    n = len(values)
    if mode == "penalty":
        return [0 if s == winner else values[s] for s in range(n)]
    if winner >= 0:
        return [sum(values) - values[winner] if s == winner else 0 for s in range(n)]
    low = min(values)
    collect = sum(v - low for v in values)
    return [collect if v == low else 0 for v in values]


def match_over(state: Table) -> tuple[bool, list[int]]:
    """Whether the match ends after the hand just scored, and the places if so."""
    rules = state.rules
    totals = list(state.scores)
    lower_better = bool(state._personal) or rules.scoring_mode == "penalty"
    places = shared_places(totals, lower_is_better=lower_better)
    if state.hand_number >= rules.max_hands:
        return True, places
    if state._personal:
        over = min(totals) <= 0
    elif rules.match_end == "hands":
        over = state.hand_number >= rules.match_hands + state._extra
    else:
        over = max(totals) >= state._target
    if over and rules.tie_policy == "extra_hands" and places.count(1) > 1:
        if state._extra < rules.max_extra_hands:
            state._extra += 1
            return False, []
    return over, places

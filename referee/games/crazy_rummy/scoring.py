"""Crazy Rummy scoring: the points of a deal and the final places (spec A.3 rules 21-23).

Kept apart from the turn rules because they only read finished hands and totals: the state
calls :func:`deal_points` once per deal and :func:`places` for the standings.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.games.base import shared_places
from referee.games.crazy_rummy.rules import CrazyRummyRules


def deal_points(rules: CrazyRummyRules, hands: Sequence[Sequence[int]], wild_rank: int,
                out_seats: Sequence[int], void: bool) -> list[int]:
    """Each seat's points for the deal: the go-out bonus for the seats in ``out_seats``, the
    value of the hand for everyone else, all multiplied in doubled deals; zeros if void."""
    if void:
        return [0] * len(hands)
    factor = rules.deal_multiplier(wild_rank)
    return [
        factor * (rules.go_out_bonus if seat in out_seats else
                  sum(rules.card_value(card, wild_rank) for card in hand))
        for seat, hand in enumerate(hands)
    ]


def places(rules: CrazyRummyRules, totals: Sequence[int], deal_scores: Sequence[Sequence[int]],
           deals_won: Sequence[int]) -> list[int]:
    """Final places, lowest total first (rule 22).

    ``tie_policy = shared``: equal totals share a place. ``deals_won_then_worst_deal``: among
    equal totals, more deals gone out in ranks first, then the lower worst single deal; seats
    still equal share the place [ENGINE DECISION, spec A.4].
    """
    if rules.tie_policy == "shared":
        return shared_places(totals, lower_is_better=True)
    keys = [(totals[s], -deals_won[s], max((d[s] for d in deal_scores), default=0))
            for s in range(len(totals))]
    return [1 + sum(1 for other in keys if other < mine) for mine in keys]

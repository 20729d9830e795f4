"""What one seat of a Crazy Eights match may know (spec section 2 rule 4).

Built from public state and the seat's own hand only, so two matches that differ only in
hidden cards (other hands, the stock's order) give equal views. Fields:

=================  ===========================================================================
game, preset       ``"crazy-eights"`` and the preset name
seat, num_players  this seat; how many seats
hand_number        1-based number of the current hand
dealer             the dealer's seat
current_player     the seat to act (-1 when the match is over)
phase              ``play``, ``name_suit``, ``draw_two``, ``after_draw``, ``multi_play``, ``over``
hand               this seat's cards, sorted (a second copy listed twice)
top_card           the top card of the play pile
suit_to_follow     the suit in force (the named suit after a wild)
named_suit         the suit named with the wild on top, or None
pile               the play pile, bottom to top (public cards)
stock_size         cards left in the stock
hand_sizes         cards held by each seat
direction          1 clockwise, -1 anticlockwise
pending_draw       cards the seat facing a draw-two chain would take
drawn_this_turn    cards the current player has drawn this turn
drawn_card         the card this seat just drew and may play at once (one_may_play), or None
scores             match totals (Countdown: personal scores)
hand_scores        points of each finished hand
personal_scores    Countdown personal scores, else []
wild_ranks         each seat's wild rank (1 = Ace ... 13 = King)
turn               turns played in this hand
=================  ===========================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.cards import mask_cards
from referee.games.crazy_eights.table import P_AFTER_DRAW, PHASE_NAMES

if TYPE_CHECKING:
    from referee.games.crazy_eights.state import CrazyEightsState


def build_view(state: CrazyEightsState, seat: int) -> dict[str, Any]:
    """The view of ``seat`` (see the module docstring).

    Reads the table's fields directly: the referee builds one view per decision, so this is on
    its hot path (each call of a helper method per seat cost a measurable share of it).
    """
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is out of range: seats are 0 to {n - 1}")
    s = state
    own_draw = s._phase == P_AFTER_DRAW and s._cur == seat
    return {
        "game": "crazy-eights",
        "preset": s.rules.preset,
        "seat": seat,
        "num_players": n,
        "hand_number": s._hand_no,
        "dealer": s._dealer,
        "current_player": s.current_player,
        "phase": PHASE_NAMES[s._phase],
        "hand": mask_cards(s._hands[seat]),
        "top_card": s._top,
        "suit_to_follow": s._follow,
        "named_suit": s._follow if s._top_wild else None,
        "pile": list(s._pile),
        "stock_size": len(s._stock),
        "hand_sizes": [h.bit_count() for h in s._hands],
        "direction": s._dir,
        "pending_draw": s._pending,
        "drawn_this_turn": s._drawn,
        "drawn_card": s._drawn_card if own_draw else None,
        "scores": list(s.scores),
        "hand_scores": [list(h) for h in s._hand_scores],
        "personal_scores": list(s._personal),
        "wild_ranks": list(s._wr),
        "turn": s._turns,
    }

"""What one seat of a Crazy Rummy match may know (spec A.3 rule 27, section 2 rule 4).

Built from public state and the seat's own hand only, so two matches that differ only in
hidden cards (other hands, the order of the stock) give equal views. Fields:

======================  ==========================================================================
game, preset            ``"crazy-rummy"`` and the preset name
rules                   every switch and its value
seat, num_players       this seat; how many seats
deal_number, num_deals  1-based number of the current deal; how many deals the match has
dealer, first_player    the dealer's seat; the seat that played first in this deal
current_player          the seat to act (-1 when the match is over)
phase                   ``draw``, ``table``, ``discard`` or ``over``
wild_rank               the rank wild in this deal (1 = Ace .. 13 = King)
hand                    this seat's cards, sorted (a second copy listed twice)
discard_pile            the discard pile, bottom to top (only the top card may be taken)
stock_size              cards left in the stock
hand_sizes              cards held by each seat
opened                  per seat: has laid down a meld of their own this deal
melds                   the table: ``{"index", "owner", "kind": "set"|"run", "cards",
                        "meanings"}`` (meanings as in :mod:`.actions`: ranks for sets, card ids
                        for runs, in position order low to high)
scores                  match totals per seat (lower is better)
deal_scores             points of each finished deal, per seat
deals_won               how many deals each seat went out in
turn                    1-based number of the current turn in this deal
max_turns               the stall guard: the deal ends after this turn
one_card_turn           the current player began the turn holding one card (rule 18)
drawn_card              the card this seat drew this turn (when it is this seat's turn), or None
must_place              a card the current player must put on the table next, or None
first_turn              the current turn is the deal's first (no draw, no exchange)
======================  ==========================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.games.crazy_rummy.state import CrazyRummyState


def build_view(state: CrazyRummyState, seat: int) -> dict[str, Any]:
    """The view of ``seat`` (see the module docstring)."""
    from referee.games.crazy_rummy.state import PHASE_NAMES

    s = state
    n = s.num_players
    if not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is out of range: seats are 0 to {n - 1}")
    mine = s._cur == seat and s.current_player >= 0
    return {
        "game": "crazy-rummy",
        "preset": s.rules.preset,
        "rules": s.rules.switches(),
        "seat": seat,
        "num_players": n,
        "deal_number": s._deal_no,
        "num_deals": s.rules.num_deals,
        "dealer": s._dealer,
        "first_player": s._first_player,
        "current_player": s.current_player,
        "phase": PHASE_NAMES[s._phase],
        "wild_rank": s._wild,
        "hand": list(s._hands[seat]),
        "discard_pile": list(s._discard),
        "stock_size": len(s._stock),
        "hand_sizes": [len(h) for h in s._hands],
        "opened": list(s._opened),
        "melds": [
            {"index": i, "owner": m.owner, "kind": "set" if m.kind == 0 else "run",
             "cards": list(m.cards), "meanings": list(m.meanings)}
            for i, m in enumerate(s._melds)
        ],
        "scores": list(s._scores),
        "deal_scores": [list(d) for d in s._deal_scores],
        "deals_won": list(s._deals_won),
        "turn": s._turn,
        "max_turns": s.rules.turn_limit(n),
        "one_card_turn": s._one_card and s.current_player >= 0,
        "drawn_card": s._drawn if mine and s._drawn >= 0 else None,
        "must_place": s._must_place if s._must_place >= 0 and s.current_player >= 0 else None,
        "first_turn": s._turn == 1 and s.current_player >= 0,
    }

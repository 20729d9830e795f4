"""The fallback player: a simple, deterministic, always-legal policy for a failed seat.

It exists so that one failing bot never spoils the other seats' match: the match completes
and counts. It is deterministic (no randomness at all), so a replay re-plays it exactly from
the recorded actions, and it is deliberately plain: play something if possible (Crazy Eights:
the first listed play, preferring to announce a last card; Crazy Rummy: discard the highest
card, never meld), otherwise the first legal action (draw, pass, end the table phase).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.games import MatchState

_C8_PLAY = 64


def fallback_action(state: MatchState[Any]) -> Any:
    """A legal action for the current player of ``state``."""
    legal = state.legal_actions()
    if state.game == "crazy-eights":
        plays = [a for a in legal if a >= _C8_PLAY]
        if not plays:
            return legal[0]
        card_of_first = (plays[0] - _C8_PLAY) >> 4
        same_card = [a for a in plays if (a - _C8_PLAY) >> 4 == card_of_first]
        return max(same_card, key=lambda a: (a & 1, -a))
    return _rummy_fallback(legal)


def _rummy_fallback(legal: Sequence[Any]) -> Any:
    discards = [a for a in legal if getattr(a, "kind", "") == "discard"]
    if discards:
        return max(discards, key=lambda a: (max(c % 13 for c in a.cards), a))
    for preferred in ("draw_stock", "end_table"):
        for action in legal:
            if getattr(action, "kind", "") == preferred:
                return action
    return legal[0]

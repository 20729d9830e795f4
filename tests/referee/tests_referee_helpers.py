"""Shared checks for the referee tests."""

from __future__ import annotations

from referee.games import GAMES
from referee.match_types import MatchResult

GAMES_UNDER_TEST = [("crazy-eights", "classic", 2), ("crazy-eights", "house", 4)]
if "crazy-rummy" in GAMES:
    try:
        from referee.games.crazy_rummy.state import CrazyRummyState  # noqa: F401
    except ImportError:
        pass
    else:
        GAMES_UNDER_TEST.append(("crazy-rummy", "standard", 3))


def check_result(result: MatchResult, players: int) -> None:
    """Invariants of every finished match."""
    assert len(result.seats) == players
    assert result.decisions == len(result.replay["actions"]) > 0
    places = [s.place for s in result.seats]
    assert min(places) == 1 and max(places) <= players
    taken = [s for s in result.seats if s.taken_over]
    if taken:
        assert all(s.place > max(k.place for k in result.seats if not k.taken_over) for s in taken)


def bot_logs(arena, name: str) -> str:
    """Everything the process sandbox captured from the bots named ``name`` so far."""
    return "\n".join(h.logs() for h in arena.sandbox.handles if h.name == name)

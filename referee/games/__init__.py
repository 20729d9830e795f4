"""The rules engines: pure rules, no I/O, no clocks, no global randomness.

Use :func:`new_match` to start a match and :func:`make_rules` to build a rule set; see
:mod:`referee.games.base` for the state contract every game follows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.games.base import (
    Action,
    Event,
    IllegalActionError,
    MatchState,
    RuleSet,
    RulesError,
    Switch,
    TalonGameError,
    shared_places,
)

__all__ = [
    "Action", "Event", "IllegalActionError", "MatchState", "RuleSet", "RulesError", "Switch",
    "TalonGameError", "shared_places", "GAMES", "rules_class", "make_rules", "new_match", "replay",
]

GAMES = ("crazy-eights", "crazy-rummy")


def rules_class(game: str) -> type[RuleSet]:
    """The rule-set class of ``game``."""
    if game == "crazy-eights":
        from referee.games.crazy_eights.rules import CrazyEightsRules

        return CrazyEightsRules
    if game == "crazy-rummy":
        from referee.games.crazy_rummy.rules import CrazyRummyRules

        return CrazyRummyRules
    raise RulesError(f"unknown game {game!r}; games are: {', '.join(GAMES)}")


def make_rules(game: str, preset: str, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The validated rule set of ``game``'s ``preset`` with ``overrides`` applied."""
    return rules_class(game).from_preset(preset, overrides)


def new_match(game: str, rules: RuleSet | str, players: int, seed: int) -> MatchState[Any]:
    """A new match of ``game`` under ``rules`` (a rule set or a preset name) for ``players``."""
    if isinstance(rules, str):
        rules = make_rules(game, rules)
    if rules.GAME != game:
        raise RulesError(f"rules are for {rules.GAME!r}, not {game!r}")
    rules.check_players(players)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RulesError(f"seed must be an integer, not {seed!r}")
    if game == "crazy-eights":
        from referee.games.crazy_eights.state import CrazyEightsState

        return CrazyEightsState(rules, players, seed)  # type: ignore[arg-type]
    from referee.games.crazy_rummy.state import CrazyRummyState

    return CrazyRummyState(rules, players, seed)  # type: ignore[arg-type]


def replay(
    game: str, rules: RuleSet, players: int, seed: int, actions: Sequence[Action]
) -> MatchState[Any]:
    """Re-play ``actions`` from the start: the match is a pure function of its inputs."""
    state = new_match(game, rules, players, seed)
    for action in actions:
        state.apply(action)
    return state

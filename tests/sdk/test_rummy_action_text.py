"""The SDK writes Crazy Rummy actions in the referee's own text form, wilds and all."""

import random

from referee.games import new_match
from referee.games.crazy_rummy.actions import parse_action
from talon_sdk.rummy_views import RummyAction


def test_sdk_text_reads_back_as_the_same_action_in_the_engine() -> None:
    seen_kinds = set()
    for seed in range(6):
        state = new_match("crazy-rummy", "standard", 3, seed)
        chooser = random.Random(seed)
        while not state.is_over:
            legal = list(state.legal_actions())
            for action in legal:
                sdk_action = RummyAction(action.kind, tuple(action.cards), tuple(action.meanings), action.target)
                assert parse_action(str(sdk_action)) == action, str(sdk_action)
                seen_kinds.add(action.kind)
            state.apply(legal[chooser.randrange(len(legal))])
    assert len(seen_kinds) >= 6

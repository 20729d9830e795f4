"""One contract test run over every game, preset and player count (after OpenSpiel's api_test).

Random legal play, seeded by hypothesis, checking after every decision: cards are conserved,
legal actions are sorted and non-empty until the end, the match ends within its loop guards,
a view holds nothing hidden (a twin state with the hidden cards dealt differently gives the
same view), and replay from (rules, seed, actions) is identical.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.games import GAMES, MatchState, make_rules, new_match, replay, rules_class

MAX_DECISIONS = 400_000


# rule sets beyond the presets' own player ranges: Crazy Rummy heads-up (spec section 1)
EXTRA = {("crazy-rummy", "standard"): {"players": "2-6"}}


def cases() -> list[tuple[str, str, int]]:
    out = []
    for game in GAMES:
        cls = rules_class(game)
        for preset in cls.PRESETS:
            low, high = make_rules(game, preset, EXTRA.get((game, preset))).player_range()
            for players in sorted({low, min(low + 1, high), 4 if low <= 4 <= high else low, high}):
                out.append((game, preset, players))
    return out


def twin_with_hidden_redealt(state: MatchState[Any], seat: int, rng: random.Random) -> MatchState[Any]:
    """A copy of ``state`` in which every card ``seat`` cannot see is dealt anew."""
    twin = state.clone()
    twin.redeal_hidden(seat, rng)  # type: ignore[attr-defined]
    return twin


def play_and_check(game: str, preset: str, players: int, seed: int, view_every: int) -> MatchState[Any]:
    rules = make_rules(game, preset, EXTRA.get((game, preset)))
    state = new_match(game, rules, players, seed)
    chooser = random.Random(seed ^ 0x5EED)
    total = state.card_count()
    decisions = 0
    while not state.is_over:
        legal = list(state.legal_actions())
        assert legal, "legal actions are empty before the end"
        assert legal == sorted(legal)
        assert 0 <= state.current_player < players
        if decisions % view_every == 0:
            seat = chooser.randrange(players)
            view = state.view(seat)
            json.dumps(view)  # JSON-ready
            assert twin_with_hidden_redealt(state, seat, chooser).view(seat) == view
        state.apply(legal[chooser.randrange(len(legal))])
        assert state.card_count() == total, "cards were created or lost"
        decisions += 1
        assert decisions < MAX_DECISIONS, "the match did not end within its loop guards"
    assert not state.legal_actions()
    places = state.standings()
    assert len(places) == players and min(places) == 1
    return state


@pytest.mark.parametrize("game,preset,players", cases())
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_random_play_keeps_the_contract(game: str, preset: str, players: int, seed: int) -> None:
    state = play_and_check(game, preset, players, seed, view_every=23)
    again = replay(game, state.rules, players, seed, [a for _, a in state.history])
    assert again.history == state.history
    assert [e.to_json() for e in again.events] == [e.to_json() for e in state.events]
    assert list(again.scores) == list(state.scores) and again.standings() == state.standings()


@pytest.mark.parametrize("game", GAMES)
def test_the_global_generator_changes_nothing(game: str) -> None:
    preset = next(iter(rules_class(game).PRESETS))
    players = make_rules(game, preset).player_range()[0] + 1

    def run() -> list[Any]:
        state = new_match(game, preset, players, 99)
        chooser = random.Random(1)
        for _ in range(300):
            if state.is_over:
                break
            legal = list(state.legal_actions())
            random.random()
            state.apply(legal[chooser.randrange(len(legal))])
        return [e.to_json() for e in state.events]

    random.seed(1)
    first = run()
    random.seed(2)
    assert run() == first


@pytest.mark.parametrize("game", GAMES)
def test_different_seeds_deal_differently(game: str) -> None:
    preset = next(iter(rules_class(game).PRESETS))
    players = make_rules(game, preset).player_range()[0]
    hands = {tuple(new_match(game, preset, players, seed).view(0)["hand"]) for seed in range(20)}
    assert len(hands) > 15


@pytest.mark.parametrize("game", GAMES)
def test_actions_round_trip_through_text_and_json(game: str) -> None:
    preset = next(iter(rules_class(game).PRESETS))
    players = make_rules(game, preset).player_range()[0]
    state = new_match(game, preset, players, 5)
    chooser = random.Random(5)
    for _ in range(200):
        if state.is_over:
            break
        legal = list(state.legal_actions())
        for action in legal:
            assert state.parse_action(state.action_name(action)) == action
            assert state.action_from_json(json.loads(json.dumps(state.action_to_json(action)))) == action
        state.apply(legal[chooser.randrange(len(legal))])


@pytest.mark.parametrize("game", GAMES)
def test_events_since_and_records_are_the_tail_of_events(game: str) -> None:
    preset = next(iter(rules_class(game).PRESETS))
    state = new_match(game, preset, make_rules(game, preset).player_range()[0], 11)
    chooser = random.Random(11)
    seen = 0
    for _ in range(300):
        if state.is_over:
            break
        state.apply(list(state.legal_actions())[chooser.randrange(len(state.legal_actions()))])
        tail = state.events_since(seen)
        assert [e.to_json() for e in tail] == [e.to_json() for e in state.events[seen:]]
        records = state.event_records_since(seen)
        assert [(e.kind, e.seat, dict(e.data)) for e in tail] == [(k, s, dict(d)) for k, s, d in records]
        seen += len(tail)


@pytest.mark.parametrize("game,preset,players", cases())
def test_a_fork_plays_on_like_a_clone_and_leaves_the_original_alone(game: str, preset: str, players: int) -> None:
    """``fork(rng)`` (what a search copies per rollout) has the position of ``clone()``, none of
    its history, and its own future: playing it out changes nothing in the original."""
    state = new_match(game, make_rules(game, preset, EXTRA.get((game, preset))), players, 11)
    chooser = random.Random(3)
    for _ in range(40):
        if state.is_over:
            break
        state.apply(chooser.choice(list(state.legal_actions())))
    before = [state.view(s) for s in range(players)], list(state.legal_actions()), len(state.history)
    twin = state.fork(random.Random(1))  # type: ignore[attr-defined]
    assert [twin.view(s) for s in range(players)] == before[0] and list(twin.legal_actions()) == before[1]
    assert len(twin.history) == 0 and len(twin.events) == 0
    twin_chooser = random.Random(5)
    while not twin.is_over:
        twin.apply(twin_chooser.choice(list(twin.legal_actions())))
        assert twin.card_count() == state.card_count()
    assert ([state.view(s) for s in range(players)], list(state.legal_actions()), len(state.history)) == before

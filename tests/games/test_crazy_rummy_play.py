"""Crazy Rummy under random legal play, 2 to 6 players, with random switches (hypothesis).

After every decision: cards are conserved, every meld on the table is valid, legal actions are
sorted and non-empty until the end; often: every listed action applies on a clone, random
proposals are either legal or refused without touching the state, and a seat's view does not
change when the cards it cannot see are dealt anew. At the end: the match ended within its
guards, and replaying (rules, seed, actions) gives the same history, events and scores.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.games import IllegalActionError, make_rules, new_match, replay
from referee.games.crazy_rummy import actions as A
from referee.games.crazy_rummy.rules import CrazyRummyRules
from referee.games.crazy_rummy.state import CrazyRummyState
from talon_sdk.melds import make_meld

SHORT_GAMES = {"wild_sequence", "max_turns_per_deal"}
CHOICES: dict[str, list[Any]] = {
    "decks": [1, 2],
    "hand_size": ["auto", 3, 7, 10],
    "ace_in_runs": ["low", "high_or_low"],
    "first_player": ["left_of_dealer", "dealer"],
    "first_turn_meld": ["allowed", "discard_only"],
    "first_turn_go_out": ["ends_deal", "full_turn"],
    "no_meld_until_round_complete": [False, True],
    "reclaimed_wild_must_be_used": [False, True],
    "may_discard_card_just_taken": [True, False],
    "discard_take_must_meld": [False, True],
    "one_card_rule": [True, False],
    "stock_exhausted": ["end_deal", "reshuffle", "turn_over"],
    "max_turns_per_deal": ["auto", 6, 30],
    "stall_resolution": ["score", "void"],
    "allow_all_wild_melds": [True, False],
    "wild_value": [25, 15],
    "value_scheme": ["standard", "beanie"],
    "go_out_bonus": [0, -15],
    "double_when_wild_in": ["none", "7_and_K"],
    "tie_policy": ["shared", "deals_won_then_worst_deal"],
    "wild_sequence": ["ace_to_king", "two_to_king"],
}


@st.composite
def matches(draw: st.DrawFn) -> tuple[CrazyRummyRules, int, int]:
    overrides: dict[str, Any] = {"players": "2-6"}
    for name, options in CHOICES.items():
        if draw(st.booleans()):
            overrides[name] = draw(st.sampled_from(options))
    players = draw(st.integers(2, 6))
    if overrides.get("hand_size") in (10,) and players > 4 and overrides.get("decks") != 2:
        overrides["hand_size"] = 7
    rules: CrazyRummyRules = make_rules("crazy-rummy", "standard", overrides)  # type: ignore[assignment]
    return rules, players, draw(st.integers(0, 2**32))


def proposal(state: CrazyRummyState, rng: random.Random) -> A.RummyAction:
    """A random action of any kind, mostly illegal, built from the hand and the table."""
    hand = state.hand(state.current_player)
    kind = rng.randrange(9)
    card = rng.choice(hand)
    target = rng.randrange(len(state.melds) + 1)
    if kind in (A.MELD_SET, A.MELD_RUN):
        cards = rng.sample(hand, rng.randint(1, min(len(hand), 5)))
        if kind == A.MELD_SET:
            return A.meld_set(cards, [rng.randint(1, 13)] * len(cards))
        suit, low = rng.randrange(4), rng.randint(1, 11)
        return A.meld_run(cards, [suit * 13 + (low + i - 1) % 13 for i in range(len(cards))])
    if kind in (A.LAY_OFF_SET, A.LAY_OFF_RUN):
        meaning = rng.randint(1, 13) if kind == A.LAY_OFF_SET else rng.randrange(52)
        return A.RummyAction(kind, (card,), (meaning,), target)
    if kind == A.EXCHANGE:
        wilds = state.melds[target].cards if target < len(state.melds) else (0,)
        return A.exchange(card, rng.choice(wilds), target)
    return A.discard(card) if kind == A.DISCARD else A.RummyAction(kind)


def fingerprint(state: CrazyRummyState) -> str:
    views = [state.view(s) for s in range(state.num_players)]
    return json.dumps([views, state.card_count(), len(state.history), state._stock])


def check_step(state: CrazyRummyState, rng: random.Random, legal: list[A.RummyAction]) -> None:
    for action in legal:
        state.clone().apply(action)
    before = fingerprint(state)
    for _ in range(3):
        action = proposal(state, rng)
        try:
            state.clone().apply(action)
        except IllegalActionError as err:
            assert str(err).startswith("illegal: ")
            assert action not in legal
        else:
            assert state.phase == "table" and action.kind != A.END_TABLE or action in legal
    assert fingerprint(state) == before
    seat = rng.randrange(state.num_players)
    twin = state.clone()
    twin.redeal_hidden(seat, rng)
    assert twin.view(seat) == state.view(seat)
    json.dumps(state.view(seat))


def play_out(rules: CrazyRummyRules, players: int, seed: int) -> CrazyRummyState:
    state = CrazyRummyState(rules, players, seed)
    rng = random.Random(seed)
    total = state.card_count()
    decisions = 0
    while not state.is_over:
        legal = state.legal_actions()
        assert legal and legal == sorted(legal)
        if decisions % 11 == 0:
            check_step(state, rng, legal)
        state.apply(legal[rng.randrange(len(legal))])
        assert state.card_count() == total
        for meld in state.melds:
            make_meld(meld.kind, meld.cards, meld.meanings, state._meld_rules, meld.owner)
        decisions += 1
        assert decisions < 100_000
    assert state.legal_actions() == []
    assert len(state.hand_scores) == rules.num_deals
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match=matches())
def test_random_play_keeps_every_invariant_and_replays(match: tuple[CrazyRummyRules, int, int]) -> None:
    rules, players, seed = match
    state = play_out(rules, players, seed)
    again = replay("crazy-rummy", rules, players, seed, [a for _, a in state.history])
    assert again.history == state.history
    assert [e.to_json() for e in again.events] == [e.to_json() for e in state.events]
    assert list(again.scores) == list(state.scores) and again.standings() == state.standings()
    assert sorted(state.standings())[0] == 1


def test_the_seed_alone_decides_the_deal() -> None:
    views = [new_match("crazy-rummy", "standard", 4, 77).view(s) for s in range(4)]
    assert views == [new_match("crazy-rummy", "standard", 4, 77).view(s) for s in range(4)]
    assert views != [new_match("crazy-rummy", "standard", 4, 78).view(s) for s in range(4)]

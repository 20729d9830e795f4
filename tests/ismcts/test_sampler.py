"""The sampler never deals a seat a card it cannot hold; the inferences never rule out the truth.

Matches of every Crazy Eights preset are played on the real engine by a mix of sensible and
random players (random players draw while able to play, which breaks the sensible-player
assumption on purpose). One tracker per seat hears every public event, as a bot would. At each
decision, for the seat to act:

* the truth satisfies the tracker's hard evidence for every other hand (so the inferences are
  sound, and a consistent deal always exists);
* every dealt hand has the right size, holds only unseen cards, and fits the evidence (hard
  and, when used, the sensible-player assumption);
* the position built from the view plus a deal is, to that seat, the same position: the same
  view and the same legal actions.
"""

from __future__ import annotations

import collections
import random
from typing import Any

import pytest

from referee.games import make_rules, new_match
from referee.games.crazy_eights.rules import PRESETS
from referee.games.crazy_eights.state import arrange
from referee.match_wire import GameCodec
from talon_sdk.cards import parse_cards
from talon_sdk.views import EightsView, make_view
from talon_ismcts.agent import likely_groups, unseen_pool
from talon_ismcts.eights import EightsSimulation
from talon_ismcts.eights_position import from_view, prototype
from talon_ismcts.eights_tracker import EightsTracker
from talon_ismcts.sampler import Group, InconsistentError, deal, satisfies


def _view(state: Any, seat: int) -> EightsView:
    message = GameCodec("crazy-eights").request(1, 0, 1000, 1000, state.view(seat), state.legal_actions(), True, [])
    view: EightsView = make_view(message.request)
    return view


def _sensible(legal: Any) -> int:
    """Play the first card that plays; draw or pass only when nothing does."""
    plays = [a for a in legal if a >= 64]
    return plays[0] if plays else legal[0]


def _check_deals(state: Any, seat: int, tracker: EightsTracker, rng: random.Random, samples: int) -> int:
    view = _view(state, seat)
    n = state.num_players
    groups = tracker.groups_for(view.hand_sizes)
    by_seat = collections.defaultdict(list)
    for g in groups:
        by_seat[g.seat].append(g)
    for other in range(n):
        if other != seat:
            truth = state.hand_cards(other)
            assert satisfies(truth, by_seat[other]), (other, truth, by_seat[other])
    decks = state.rules.decks_for(n)
    pool = unseen_pool(decks, [*view.hand, *view.pile])
    assert len(pool) == view.stock_size + sum(view.hand_sizes) - len(view.hand)
    used = likely_groups(pool, groups, rng)
    for group, hard in zip(used, groups):
        assert group.allowed & ~hard.allowed == 0  # the assumption only ever narrows
    for _ in range(samples):
        hands, stock = deal(pool, used, rng)
        assert len(stock) == view.stock_size
        assert collections.Counter([c for h in hands for c in h] + stock) == collections.Counter(pool)
        for group, cards in zip(used, hands):
            assert len(cards) == group.count
            assert all(group.allowed >> c & 1 for c in cards), (group, cards)
    if view.phase != "multi_play":
        template = from_view(prototype(state.rules, n), view, tracker, [], False, rng)
        sim = EightsSimulation(template, pool, used)
        guess = sim.determinize(rng)
        assert guess.view(seat) == state.view(seat)
        assert list(guess.legal_actions()) == list(state.legal_actions())
    return sum(1 for g in groups if g.allowed != (1 << 52) - 1)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_inferences_hold_the_truth_and_deals_fit_them(preset: str, players: int) -> None:
    rng = random.Random(f"{preset}/{players}")
    constrained = 0
    for match in range(3):
        rules = make_rules("crazy-eights", preset)
        state = new_match("crazy-eights", rules, players, 100 + match)
        trackers = [EightsTracker(rules, s, players) for s in range(players)]
        random_seats = {match % players}
        seen = 0
        for _ in range(400):
            if state.is_over:
                break
            new = state.events_since(seen)
            for event in new:
                for tracker in trackers:
                    tracker.observe(event.kind, event.seat, event.data)
            seen += len(new)
            seat = state.current_player
            constrained += _check_deals(state, seat, trackers[seat], rng, samples=3)
            legal = state.legal_actions()
            state.apply(rng.choice(legal) if seat in random_seats else _sensible(legal))
        assert all(t.resets == 0 for t in trackers), [t.resets for t in trackers]
    if not PRESETS[preset].get("may_draw_when_able_to_play", True):
        assert constrained > 0  # rules that force play leave evidence, and it is used


def test_a_forced_draw_rules_out_every_card_that_would_have_played() -> None:
    """house: drawing is allowed only when nothing plays, so a draw on the 7 of hearts shows
    the drawer held no heart, no 7 and no 8; the card drawn is unknown."""
    rules = make_rules("crazy-eights", "house")
    state = new_match("crazy-eights", rules, 2, 1)
    mine = parse_cards("2C 3C 4C 5C 6C")
    theirs = parse_cards("9S 10S KD 2D 4S")
    pile = parse_cards("7H")
    rest = [c for c in range(52) if c not in mine + theirs + pile]
    arrange(state, [mine, theirs], pile, rest, current=1)
    tracker = EightsTracker(rules, 0, 2)
    tracker.observe("deal", 0, {"sizes": [5, 5]})
    tracker.observe("upcard", 0, {"card": "7H"})
    assert list(state.legal_actions()) == [0]
    seen = len(state.events)
    state.apply(0)  # the opponent must draw
    for event in state.events_since(seen):
        tracker.observe(event.kind, event.seat, event.data)
    groups = tracker.groups_for([len(state.hand_cards(0)), len(state.hand_cards(1))])
    playable = set(parse_cards("AH 2H 3H 4H 5H 6H 8H 9H 10H JH QH KH 7C 7D 7S 8C 8D 8S"))
    rng = random.Random(7)
    pool = unseen_pool(1, [*mine, *state._pile])
    for _ in range(300):
        hands, _ = deal(pool, groups, rng)
        dealt = [c for h in hands for c in h]
        assert len(dealt) == len(state.hand_cards(1))
        assert sum(1 for c in dealt if c in playable) <= 1  # only the drawn card may play


def test_the_matching_fallback_finds_a_tight_deal_and_refuses_an_impossible_one() -> None:
    rng = random.Random(3)
    pool = [0, 1, 2, 3]
    tight = [Group(1, 1, 0b0011), Group(2, 1, 0b0001), Group(3, 2, 0b1111)]
    for _ in range(50):
        hands, stock = deal(pool, tight, rng)
        assert hands[1] == [0] and hands[0] == [1] and sorted(hands[2]) == [2, 3] and stock == []
    with pytest.raises(InconsistentError):
        deal(pool, [Group(1, 2, 0b0001), Group(2, 1, 0b1111)], rng)

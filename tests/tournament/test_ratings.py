"""Ratings: known values, ties, recovery of known strengths, the group bootstrap, side tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from referee.tournament.plackett_luce import Design, _terms
from referee.tournament.ratings import (
    BASE,
    ELO_PER_UNIT,
    LiveRatings,
    RatingOptions,
    RatingsError,
    rate,
)
from referee.tournament.results import Failure, MatchResult, ResultError


def heads_up(outcomes: list[tuple[int, int]]) -> list[MatchResult]:
    """One game per group between A (seat 0 on even groups) and B; outcomes are A's, B's place."""
    results = []
    for i, (a, b) in enumerate(outcomes):
        seats, places = (("A", "B"), (a, b)) if i % 2 == 0 else (("B", "A"), (b, a))
        results.append(MatchResult(f"m{i}", 0, i, seats, places, (0.0, 0.0)))
    return results


def plackett_luce_draw(theta: np.ndarray, rng: np.random.Generator) -> list[int]:
    """Places of one Plackett–Luce finishing order of players with log-strengths ``theta``."""
    left, order = list(range(len(theta))), []
    while left:
        w = np.exp(theta[left])
        order.append(left.pop(int(rng.choice(len(left), p=w / w.sum()))))
    places = [0] * len(theta)
    for position, seat in enumerate(order):
        places[seat] = position + 1
    return places


def synthetic(theta: np.ndarray, groups: int, k: int, rng: np.random.Generator) -> list[MatchResult]:
    names = [f"b{i}" for i in range(len(theta))]
    results = []
    for g in range(groups):
        table = rng.choice(len(theta), size=k, replace=False)
        for r in range(k):
            seats = list(np.roll(table, -r))
            places = plackett_luce_draw(theta[seats], rng)
            results.append(
                MatchResult(f"g{g}-r{r}", 0, g, tuple(names[s] for s in seats), tuple(places), (0.0,) * k, rotation=r)
            )
    return results


def test_two_players_known_win_rate_gives_the_log_odds() -> None:
    ratings = rate(heads_up([(1, 2)] * 75 + [(2, 1)] * 25), RatingOptions(samples=50))
    a, b = ratings.bots
    assert (a.bot, b.bot) == ("A", "B")
    assert a.rating - b.rating == pytest.approx(400 * math.log10(3), abs=1.0)  # weak prior: < 1 point
    assert (a.rating + b.rating) / 2 == pytest.approx(BASE)
    assert a.win_share == 0.75 and a.matches == 100


def test_a_two_player_tie_is_half_a_win_and_half_a_loss() -> None:
    with_ties = rate(heads_up([(1, 2)] * 50 + [(1, 1)] * 50), RatingOptions(samples=20))
    plain = rate(heads_up([(1, 2)] * 75 + [(2, 1)] * 25), RatingOptions(samples=20))
    assert with_ties.bots[0].rating == pytest.approx(plain.bots[0].rating, abs=1e-4)
    assert with_ties.bots[0].win_share == pytest.approx(0.75)  # a shared first counts one half


def brute_force_log_likelihood(theta: np.ndarray, places: list[int]) -> float:
    """Average Plackett–Luce log-likelihood over every way to order the tied players."""
    orders = [
        order for order in itertools.permutations(range(len(places)))
        if all(places[order[i]] <= places[order[i + 1]] for i in range(len(order) - 1))
    ]
    total = 0.0
    for order in orders:
        for i, seat in enumerate(order):
            total += theta[seat] - math.log(sum(math.exp(theta[s]) for s in order[i:]))
    return total / len(orders)


@pytest.mark.parametrize(
    "places", [[1, 2, 3, 4], [1, 1, 3, 4], [1, 2, 2, 4], [1, 2, 3, 3], [1, 1, 1, 4], [2, 1, 2, 1], [1] * 5, [3, 1, 1, 3, 5]]
)
def test_tie_terms_equal_the_average_over_orders(places: list[int]) -> None:
    theta = np.random.default_rng(len(places) + sum(places)).normal(size=len(places))
    members = list(range(len(places)))
    lone_last = [s for s in members if places[s] == max(places) and places.count(max(places)) == 1]
    numerators = sum(theta[s] for s in members if s not in lone_last)
    terms = sum(c * math.log(sum(math.exp(theta[i]) for i in s)) for s, c in _terms(members, places))
    assert numerators - terms == pytest.approx(brute_force_log_likelihood(theta, places))


def test_plackett_luce_recovers_known_strengths_and_covers_the_truth() -> None:
    theta = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    truth = BASE + ELO_PER_UNIT * (theta - theta.mean())
    covered, reps = 0, 12
    for rep in range(reps):
        ratings = rate(synthetic(theta, 150, 4, np.random.default_rng(rep)), RatingOptions(samples=200, seed=rep))
        by_name = {b.bot: b for b in ratings.bots}
        if rep == 0:
            assert ratings.names() == ("b4", "b3", "b2", "b1", "b0")
        covered += sum(by_name[f"b{i}"].lower <= truth[i] <= by_name[f"b{i}"].upper for i in range(5))
    assert covered / (5 * reps) >= 0.85  # nominal 0.95


def test_bootstrap_resamples_whole_deal_groups() -> None:
    # Seat 0 always wins: within each deal group A and B win once each, so the group totals
    # never vary. Resampling groups must then give zero-width intervals; resampling games
    # would not.
    results = []
    for g in range(40):
        results.append(MatchResult(f"g{g}r0", 0, g, ("A", "B"), (1, 2), (0.0, 0.0), rotation=0))
        results.append(MatchResult(f"g{g}r1", 0, g, ("B", "A"), (1, 2), (0.0, 0.0), rotation=1))
    ratings = rate(results, RatingOptions(samples=100))
    for bot in ratings.bots:
        assert bot.rating == pytest.approx(BASE, abs=1e-6)
        assert bot.upper - bot.lower == pytest.approx(0.0, abs=1e-6)
        assert bot.win_share_se == pytest.approx(0.0, abs=1e-12)
    assert ratings.seat_bias[0].win_share == 1.0 and ratings.seat_bias[1].win_share == 0.0


def test_los_matrix_and_anchor_and_determinism() -> None:
    rng = np.random.default_rng(7)
    results = synthetic(np.array([0.0, 0.1, 2.0]), 60, 3, rng)
    options = RatingOptions(samples=200, seed=3)
    ratings = rate(results, options)
    assert ratings == rate(results, options)  # seeded: the same table every time
    los = np.array(ratings.los)
    assert np.allclose(los + los.T, 1.0) and np.allclose(np.diag(los), 0.5)
    assert ratings.names()[0] == "b2" and ratings.superiority("b2", "b0") == 1.0
    anchored = rate(results, RatingOptions(samples=50, anchor="b0"))
    b0 = next(b for b in anchored.bots if b.bot == "b0")
    assert b0.rating == b0.lower == b0.upper == BASE
    assert ratings.connected


def test_side_tables_count_wins_places_scores_and_failures() -> None:
    results = [
        MatchResult("a", 0, 0, ("x", "y", "z"), (1, 1, 3), (0.0, 0.0, 12.0)),
        MatchResult("b", 0, 0, ("y", "z", "x"), (1, 2, 3), (0.0, 5.0, 9.0),
                    failures=(Failure("timeout", 2, 4, "slow"),), status="forfeit"),
        MatchResult("c", 0, 0, ("z", "x", "y"), (2, 1, 3), (3.0, 0.0, 7.0)),
    ]
    rows = {b.bot: b for b in rate(results, RatingOptions(samples=10)).bots}
    assert rows["x"].wins == pytest.approx(1.5) and rows["x"].failures == 1
    assert rows["y"].wins == pytest.approx(1.5) and rows["z"].wins == 0
    assert rows["x"].mean_place == pytest.approx(5 / 3)
    assert rows["z"].mean_score == pytest.approx(20 / 3)
    assert [s.seat for s in rows["x"].seats] == [0, 1, 2]
    assert rows["x"].seats[2].mean_score == 9.0
    assert math.isnan(rows["x"].win_share_se)  # one deal group: no spread to estimate
    json_bots = rate(results, RatingOptions(samples=10)).to_json()["bots"]
    assert {"bot", "rating", "lower", "upper", "matches", "win_share", "mean_score", "failures"} <= set(json_bots[0])


def test_errors_name_the_problem() -> None:
    with pytest.raises(RatingsError, match="no match results to rate"):
        rate([])
    with pytest.raises(RatingsError, match="anchor 'nobody' has no results"):
        rate(heads_up([(1, 2)]), RatingOptions(anchor="nobody"))
    with pytest.raises(RatingsError, match="bootstrap samples 0"):
        RatingOptions(samples=0)
    with pytest.raises(ResultError, match="not competition places"):
        MatchResult("m", 0, 0, ("a", "b", "c"), (1, 3, 3), (0.0,) * 3)
    with pytest.raises(ResultError, match="not competition places"):
        MatchResult("m", 0, 0, ("a", "b", "c"), (1, 1, 2), (0.0,) * 3)


def test_disconnected_fields_are_flagged() -> None:
    results = heads_up([(1, 2)] * 3) + [MatchResult("x", 1, 0, ("C", "D"), (1, 2), (0.0, 0.0))]
    assert not Design.from_results(results).is_connected()


def test_live_ratings_follow_the_results() -> None:
    live = LiveRatings()
    for result in synthetic(np.array([0.0, 1.5, 3.0]), 80, 3, np.random.default_rng(1)):
        live.update(result)
    table = live.table()
    assert [row.bot for row in table] == ["b2", "b1", "b0"]
    assert all(row.matches == 240 for row in table)

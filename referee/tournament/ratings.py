"""Honest ratings from a tournament's results: a batch fit, group-bootstrap intervals, side tables.

* **Rating**: the batch Plackett–Luce fit of :mod:`.plackett_luce` on every match's finishing
  order, shown on an Elo-like scale: 400/ln 10 points per unit of log-strength (so for two
  players a 64 % win rate is 100 points, as in Elo), mean :data:`BASE` (or one anchor bot at
  :data:`BASE`). Batch, so the order games were played in changes nothing.
* **Uncertainty**: percentile intervals from a bootstrap over whole deal groups, and from the
  same resamples the likelihood-of-superiority matrix: the share of resamples in which i is
  rated above j (ties count half). LOS is about true strength, not the next game.
* **Side tables**: matches, win share (a shared first place is split), mean place, mean score,
  failures, per-seat results and the field's seat bias; standard errors of win share and mean
  score are clustered by deal group, for the same reason as the bootstrap.
* **Live table**: :class:`LiveRatings`, OpenSkill's Plackett–Luce updated game by game with
  tau = 0, for progress display only: online ratings depend on game order, so the final table
  is always the batch fit.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from openskill.models import PlackettLuce, PlackettLuceRating

from referee.tournament.plackett_luce import Design, RatingsError, bootstrap
from referee.tournament.results import MatchResult

__all__ = [
    "BASE", "ELO_PER_UNIT", "BotRating", "LiveRating", "LiveRatings", "RatingOptions", "Ratings",
    "RatingsError", "SeatStats", "rate",
]

ELO_PER_UNIT = 400.0 / math.log(10.0)
"""Rating points per unit of log-strength: the Elo scale."""
BASE = 1500.0


@dataclasses.dataclass(frozen=True)
class RatingOptions:
    """How to rate. The bootstrap is seeded, so the same results always give the same table."""

    samples: int = 1000
    """Bootstrap resamples (1,000 for final tables; ~100 is enough for progress)."""
    seed: int = 0
    prior_sd: float = 5.0
    """Standard deviation of the Gaussian prior on log-strengths (5 units = 870 points):
    weak, it only matters for bots that never lost or never won."""
    confidence: float = 0.95
    anchor: str | None = None
    """A bot fixed at :data:`BASE` (its interval is then zero-width); ``None``: the mean is."""

    def __post_init__(self) -> None:
        if not isinstance(self.samples, int) or self.samples < 1:
            raise RatingsError(f"bootstrap samples {self.samples!r}: allowed: an integer from 1 up")
        if not self.prior_sd > 0:
            raise RatingsError(f"prior sd {self.prior_sd!r}: allowed: a positive number")
        if not 0 < self.confidence < 1:
            raise RatingsError(f"confidence {self.confidence!r}: allowed: strictly between 0 and 1")


@dataclasses.dataclass(frozen=True)
class SeatStats:
    """Results from one seat (0 = first to act in the deal's seat order)."""

    seat: int
    matches: int
    win_share: float
    mean_place: float
    mean_score: float

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class BotRating:
    """One leaderboard row."""

    bot: str
    rating: float
    lower: float
    upper: float
    matches: int
    wins: float
    """First places; a first place shared by m bots counts 1/m."""
    win_share: float
    win_share_se: float
    mean_place: float
    mean_score: float
    mean_score_se: float
    failures: int
    seats: tuple[SeatStats, ...]

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["seats"] = [s.to_json() for s in self.seats]
        return out


@dataclasses.dataclass(frozen=True)
class Ratings:
    """The rated table, best first, and how it was computed."""

    bots: tuple[BotRating, ...]
    los: tuple[tuple[float, ...], ...]
    """``los[i][j]``: share of bootstrap resamples rating ``bots[i]`` above ``bots[j]``."""
    seat_bias: tuple[SeatStats, ...]
    """The whole field's results per seat: how much the seat itself is worth."""
    matches: int
    groups: int
    samples: int
    confidence: float
    connected: bool
    anchor: str | None

    def names(self) -> tuple[str, ...]:
        return tuple(b.bot for b in self.bots)

    def superiority(self, a: str, b: str) -> float:
        """Likelihood that ``a`` is truly stronger than ``b``."""
        names = self.names()
        return self.los[names.index(a)][names.index(b)]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "plackett-luce, ties averaged over orders; deal-group bootstrap",
            "scale": {"base": BASE, "points_per_log_strength": ELO_PER_UNIT, "anchor": self.anchor},
            "matches": self.matches,
            "groups": self.groups,
            "samples": self.samples,
            "confidence": self.confidence,
            "connected": self.connected,
            "bots": [b.to_json() for b in self.bots],
            "los": {"bots": list(self.names()), "matrix": [list(row) for row in self.los]},
            "seat_bias": [s.to_json() for s in self.seat_bias],
        }


def rate(results: Sequence[MatchResult], options: RatingOptions | None = None) -> Ratings:
    """The rated table of ``results`` (matches of finished deal groups only).

    :raises RatingsError: when there is nothing to rate or the anchor never played.
    """
    options = options or RatingOptions()
    design = Design.from_results(results)
    if options.anchor is not None and options.anchor not in design.bots:
        raise RatingsError(f"anchor {options.anchor!r} has no results; bots are: {', '.join(design.bots)}")
    rng = np.random.default_rng(options.seed)
    full, replicates = bootstrap(design, options.prior_sd, options.samples, rng)
    points, samples = _to_points(full, design.bots, options.anchor), _to_points(
        replicates, design.bots, options.anchor
    )
    tail = 100.0 * (1.0 - options.confidence) / 2.0
    lower, upper = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    # Refits stop at a tolerance, so with no spread at all (an unbeaten bot) the bounds could
    # miss the point estimate by rounding; an interval always contains its estimate.
    lower, upper = np.minimum(lower, points), np.maximum(upper, points)
    above = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    level = (samples[:, :, None] == samples[:, None, :]).mean(axis=0)
    los = above + 0.5 * level
    np.fill_diagonal(los, 0.5)
    stats = _bot_stats(results)
    order = sorted(range(len(design.bots)), key=lambda i: (-points[i], design.bots[i]))
    rows = tuple(
        stats[design.bots[i]].rated(float(points[i]), float(lower[i]), float(upper[i])) for i in order
    )
    return Ratings(
        bots=rows,
        los=tuple(tuple(float(los[i, j]) for j in order) for i in order),
        seat_bias=_seat_bias(results),
        matches=len(results),
        groups=len(design.groups),
        samples=options.samples,
        confidence=options.confidence,
        connected=design.is_connected(),
        anchor=options.anchor,
    )


def _to_points(theta: np.ndarray, bots: Sequence[str], anchor: str | None) -> np.ndarray:
    centre = theta[..., bots.index(anchor)][..., None] if anchor is not None else theta.mean(axis=-1)[..., None]
    points: np.ndarray = BASE + ELO_PER_UNIT * (theta - centre)
    return points


@dataclasses.dataclass
class _Tally:
    """Running sums for one bot (mutable while counting, then turned into a frozen row)."""

    bot: str
    wins: float = 0.0
    places: float = 0.0
    scores: float = 0.0
    matches: int = 0
    failures: int = 0
    by_group: dict[tuple[int, int], list[float]] = dataclasses.field(default_factory=dict)
    by_seat: dict[int, list[float]] = dataclasses.field(default_factory=dict)

    def add(self, result: MatchResult, seat: int) -> None:
        win = _win(result.places, seat)
        place, score = float(result.places[seat]), result.scores[seat]
        self.matches += 1
        self.wins += win
        self.places += place
        self.scores += score
        self.failures += sum(1 for f in result.failures if f.seat == seat)
        group = self.by_group.setdefault(result.group_key, [0.0, 0.0, 0.0])
        group[0] += 1
        group[1] += win
        group[2] += score
        row = self.by_seat.setdefault(seat, [0.0, 0.0, 0.0, 0.0])
        row[0] += 1
        row[1] += win
        row[2] += place
        row[3] += score

    def rated(self, rating: float, lower: float, upper: float) -> BotRating:
        n = self.matches
        groups = np.array(list(self.by_group.values()))
        return BotRating(
            bot=self.bot,
            rating=rating,
            lower=float(lower),
            upper=float(upper),
            matches=n,
            wins=self.wins,
            win_share=self.wins / n,
            win_share_se=_clustered_se(groups[:, 1], groups[:, 0]),
            mean_place=self.places / n,
            mean_score=self.scores / n,
            mean_score_se=_clustered_se(groups[:, 2], groups[:, 0]),
            failures=self.failures,
            seats=tuple(_seat_row(seat, row) for seat, row in sorted(self.by_seat.items())),
        )


def _win(places: Sequence[int], seat: int) -> float:
    firsts = sum(1 for p in places if p == 1)
    return 1.0 / firsts if places[seat] == 1 else 0.0


def _seat_row(seat: int, row: Sequence[float]) -> SeatStats:
    n = row[0]
    return SeatStats(seat=seat, matches=int(n), win_share=row[1] / n, mean_place=row[2] / n, mean_score=row[3] / n)


def _clustered_se(totals: np.ndarray, counts: np.ndarray) -> float:
    """Standard error of ``sum(totals) / sum(counts)`` with deal groups as clusters."""
    g = len(counts)
    if g < 2:
        return float("nan")
    ratio = totals.sum() / counts.sum()
    residual = totals - ratio * counts
    return float(math.sqrt(g / (g - 1) * float(residual @ residual)) / counts.sum())


def _bot_stats(results: Iterable[MatchResult]) -> dict[str, _Tally]:
    tallies: dict[str, _Tally] = {}
    for result in results:
        for seat, bot in enumerate(result.seats):
            tallies.setdefault(bot, _Tally(bot)).add(result, seat)
    return tallies


def _seat_bias(results: Iterable[MatchResult]) -> tuple[SeatStats, ...]:
    rows: dict[int, list[float]] = {}
    for result in results:
        for seat in range(len(result.seats)):
            row = rows.setdefault(seat, [0.0, 0.0, 0.0, 0.0])
            row[0] += 1
            row[1] += _win(result.places, seat)
            row[2] += result.places[seat]
            row[3] += result.scores[seat]
    return tuple(_seat_row(seat, row) for seat, row in sorted(rows.items()))


# --- the live, provisional table ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class LiveRating:
    """A provisional OpenSkill rating: ``ordinal`` = mu - 3 sigma, the conservative estimate."""

    bot: str
    mu: float
    sigma: float
    ordinal: float
    matches: int

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class LiveRatings:
    """OpenSkill Plackett–Luce with tau = 0, updated per match, for progress display only.

    With the default tau (0.083) the same games fed in different orders put the best bot
    anywhere from first to below the random bot in our measurement; tau = 0 keeps it stable,
    but it is still order-dependent: the final table is :func:`rate`.
    """

    def __init__(self) -> None:
        self._model = PlackettLuce(tau=0.0)
        self._ratings: dict[str, PlackettLuceRating] = {}
        self._matches: dict[str, int] = {}

    def update(self, result: MatchResult) -> None:
        """Fold one match in."""
        teams = [[self._ratings.get(bot) or self._model.rating(name=bot)] for bot in result.seats]
        rated = self._model.rate(teams, ranks=[float(p) for p in result.places])
        for bot, team in zip(result.seats, rated):
            self._ratings[bot] = team[0]
            self._matches[bot] = self._matches.get(bot, 0) + 1

    def table(self) -> tuple[LiveRating, ...]:
        """Best (by ordinal) first."""
        rows = [
            LiveRating(bot=bot, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal(), matches=self._matches[bot])
            for bot, r in self._ratings.items()
        ]
        return tuple(sorted(rows, key=lambda row: (-row.ordinal, row.bot)))

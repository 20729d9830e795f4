"""A batch Plackett–Luce fit on finishing orders, with ties, and its deal-group bootstrap.

Model: bot i has a log-strength theta_i. A finishing order is read as "first is chosen among
everyone with probability proportional to exp(theta), then second among the rest, ...". For
two players this is Bradley–Terry (and so Elo, on the right scale).

Ties: tied players are treated as if a fair coin had ordered them, and the fit uses the
*average* Plackett–Luce log-likelihood over those orders. For two players that is half a win
and half a loss (the convention of Chatbot Arena's Bradley–Terry fit). It keeps the problem
concave without a tie parameter (Davidson–Luce would add one per tie size), and it is exact
to compute: when m tied players leave a remaining set R, the positions they take see a
uniformly random subset of the m still unplaced, so the averaged term is
``sum(theta_G) - sum over non-empty S in G of log(W(R \\ G) + W(S)) / C(m, |S|)``.

The negative log-likelihood plus a weak Gaussian prior (``theta ~ N(0, prior_sd^2)``, which
fixes the free shift and keeps unbeaten bots finite) is minimised by L-BFGS with an exact
gradient. The data are stored by deal group, so a bootstrap resample of groups is a vector of
group weights and each refit reuses the same arrays, warm-started from the full fit.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence

import numpy as np
import scipy.optimize  # type: ignore[import-untyped]
import scipy.sparse  # type: ignore[import-untyped]
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from referee.tournament.results import MatchResult


class RatingsError(ValueError):
    """Results that cannot be rated; the message says why."""


@dataclasses.dataclass(frozen=True)
class Design:
    """The likelihood's terms, indexed by bot and deal group (built once, refitted often)."""

    bots: tuple[str, ...]
    groups: tuple[tuple[int, int], ...]
    """Deal-group keys ``(table, group)``: the bootstrap's resampling unit."""
    sets: scipy.sparse.csr_matrix
    """One row per distinct log-sum-exp term: which bots are in its set."""
    occurrences: scipy.sparse.csr_matrix
    """(sets x groups): each set's total coefficient in each group (1 per strict-order term,
    1/C(m, s) inside ties). Identical sets are merged, so a fit works on a few hundred rows
    however many matches there are; a resample only reweights the groups."""
    wins: np.ndarray
    """(groups x bots): how often each bot is a numerator (is placed) in each group."""

    @classmethod
    def from_results(cls, results: Sequence[MatchResult]) -> Design:
        """The terms of every match in ``results``.

        :raises RatingsError: when there is nothing to rate.
        """
        if not results:
            raise RatingsError("no match results to rate: play (or resume) the tournament first")
        bots = tuple(sorted({b for r in results for b in r.seats}))
        index = {b: i for i, b in enumerate(bots)}
        groups = tuple(sorted({r.group_key for r in results}))
        group_index = {g: i for i, g in enumerate(groups)}
        set_index: dict[tuple[int, ...], int] = {}
        term_set: list[int] = []
        term_group: list[int] = []
        coefficients: list[float] = []
        wins = np.zeros((len(groups), len(bots)))
        for result in results:
            g = group_index[result.group_key]
            for members, coefficient in _terms([index[b] for b in result.seats], result.places):
                term_set.append(set_index.setdefault(tuple(sorted(members)), len(set_index)))
                term_group.append(g)
                coefficients.append(coefficient)
            for seat, bot in enumerate(result.seats):
                if _is_numerator(result.places, seat):
                    wins[g, index[bot]] += 1
        rows = list(set_index)
        indptr = np.cumsum([0] + [len(r) for r in rows])
        sets = scipy.sparse.csr_matrix(
            (np.ones(int(indptr[-1])), np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64), indptr),
            shape=(len(rows), len(bots)),
        )
        occurrences = scipy.sparse.csr_matrix(
            (coefficients, (term_set, term_group)), shape=(len(rows), len(groups))
        )
        return cls(bots=bots, groups=groups, sets=sets, occurrences=occurrences, wins=wins)

    def fit(self, group_weights: np.ndarray, prior_sd: float, start: np.ndarray | None = None) -> np.ndarray:
        """The MAP log-strengths (mean zero) with each deal group counted ``group_weights`` times."""
        term_weights = self.occurrences @ group_weights
        numerators = group_weights @ self.wins
        precision = 1.0 / prior_sd**2
        sets, sets_t = self.sets, self.sets.T.tocsr()

        def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
            shift = float(theta.max())
            strength = np.exp(theta - shift)
            totals = sets @ strength
            value = float(term_weights @ (np.log(totals) + shift) - numerators @ theta)
            value += 0.5 * precision * float(theta @ theta)
            grad = strength * (sets_t @ (term_weights / totals)) - numerators + precision * theta
            return value, grad

        x0 = np.zeros(len(self.bots)) if start is None else start
        found = scipy.optimize.minimize(
            objective, x0, jac=True, method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-9}
        )
        theta = np.asarray(found.x, dtype=float)
        centred: np.ndarray = theta - theta.mean()
        return centred

    def is_connected(self) -> bool:
        """Whether every bot is linked to every other through shared tables (else ratings of
        unlinked parts are not comparable and only the prior relates them)."""
        parent = list(range(len(self.bots)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for row in range(self.sets.shape[0]):
            members = self.sets.indices[self.sets.indptr[row] : self.sets.indptr[row + 1]]
            for other in members[1:]:
                parent[root(int(other))] = root(int(members[0]))
        return len({root(i) for i in range(len(self.bots))}) == 1


def bootstrap(
    design: Design, prior_sd: float, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The full-data fit and ``samples`` refits on deal groups resampled with replacement.

    Whole groups are resampled because the rotations of one deal are correlated (negatively,
    mostly); resampling single games would give intervals of the wrong width.
    """
    count = len(design.groups)
    # Each fit is tiny (one variable per bot): a BLAS thread pool only adds wake-ups, which made
    # L-BFGS-B twenty times slower on a busy two-core machine (measured: 22 ms vs 1 ms a fit).
    with threadpool_limits(limits=1):
        full = design.fit(np.ones(count), prior_sd)
        replicates = np.empty((samples, len(design.bots)))
        for b in range(samples):
            weights = rng.multinomial(count, np.full(count, 1.0 / count)).astype(float)
            replicates[b] = design.fit(weights, prior_sd, start=full)
    return full, replicates


def _is_numerator(places: Sequence[int], seat: int) -> bool:
    """Whether ``seat`` contributes a numerator (all do, but a lone last place cancels out)."""
    return not _lone_last(places, seat)


def _lone_last(places: Sequence[int], seat: int) -> bool:
    worst = max(places)
    return places[seat] == worst and sum(1 for p in places if p == worst) == 1


def _terms(members: Sequence[int], places: Sequence[int]) -> list[tuple[list[int], float]]:
    """The log-sum-exp terms ``(set, coefficient)`` of one finishing order with ties."""
    terms: list[tuple[list[int], float]] = []
    remaining = set(range(len(members)))
    for place in sorted(set(places)):
        tied = [s for s in range(len(members)) if places[s] == place]
        rest = remaining - set(tied)
        if rest or len(tied) > 1:
            m = len(tied)
            for size in range(1, m + 1):
                coefficient = 1.0 / math.comb(m, size)
                for subset in itertools.combinations(tied, size):
                    terms.append(([members[s] for s in sorted(rest | set(subset))], coefficient))
        remaining = rest
    return terms

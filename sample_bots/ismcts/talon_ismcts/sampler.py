"""Dealing the hidden cards anew, consistent with everything the seat has seen.

A determinization is one guess at the hidden cards: who holds which unseen card, and the order
of the stock. It is *sound* when every guess could be the truth: each seat gets exactly as many
cards as it holds, no card the seat has seen elsewhere (its own hand, the pile, melds), and no
card the seat's inferences rule out.

The inferences arrive as **groups**: a seat's hand is split into groups of cards that share one
*allowed* mask (bit ``c`` set: card ``c`` may be in this group). A fresh hand is one group with
every card allowed; "she drew because nothing matched the 7 of hearts" takes the hearts, the 7s
and the wilds out of the mask of every group she held then; "she took the queen of spades from
the discard pile" is a group of one card whose mask is that card alone.

Dealing places the most constrained groups first, each drawing uniformly among the pool cards its
mask allows. That can dead-end when masks overlap (rare: late in a hand, few cards unseen), so a
few fresh attempts follow, then an exact fallback: a bipartite matching (Kuhn's augmenting paths)
from group slots to pool cards in random order, which finds a consistent deal whenever one
exists. The fallback's deals are consistent but not uniform; it is a safety net, not the rule.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from talon_sdk.cards import FULL_PACK_MASK

ATTEMPTS = 12
"""Greedy attempts before the exact matching fallback."""


@dataclasses.dataclass
class Group:
    """Cards of one seat's hand that share what they may be."""

    seat: int
    count: int
    allowed: int = FULL_PACK_MASK
    """Bit ``c``: card ``c`` may be one of these cards (two packs: either copy)."""
    likely: int = FULL_PACK_MASK
    """The part of ``allowed`` a *sensible* player's choices point to (see the tracker): a
    stronger, optional assumption; dealing within it is still sound, as it is within ``allowed``."""

    def copy(self) -> Group:
        return Group(self.seat, self.count, self.allowed, self.likely)

    def assumed(self) -> Group:
        """This group with the sensible-player assumption made a rule."""
        return Group(self.seat, self.count, self.allowed & self.likely, self.likely)


class InconsistentError(ValueError):
    """No deal satisfies the groups: the inferences contradict the pool (a tracker bug)."""


def deal(pool: Sequence[int], groups: Sequence[Group], rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Deal ``pool`` (the unseen cards, a multiset) to ``groups``; the rest is the stock.

    Returns the cards of each group (in the order of ``groups``) and the leftover cards in
    random order (the stock, bottom to top).

    :raises InconsistentError: when no deal satisfies every group.
    """
    need = sum(g.count for g in groups)
    if need > len(pool):
        raise InconsistentError(f"groups need {need} cards, only {len(pool)} are unseen")
    if all(g.allowed == FULL_PACK_MASK for g in groups):
        cards = list(pool)
        rng.shuffle(cards)
        out: list[list[int]] = []
        at = len(cards) - need
        for g in groups:
            out.append(cards[at:at + g.count])
            at += g.count
        return out, cards[:len(cards) - need]
    for _ in range(ATTEMPTS):
        result = _greedy(pool, groups, rng)
        if result is not None:
            return result
    return _matching(pool, groups, rng)


def _order(pool: Sequence[int], groups: Sequence[Group]) -> list[int]:
    """Group indices, the ones with the fewest admissible pool cards per slot first."""
    def tightness(i: int) -> float:
        g = groups[i]
        fits = sum(1 for c in pool if g.allowed >> c & 1)
        return fits / g.count if g.count else float("inf")

    return sorted(range(len(groups)), key=tightness)


def _greedy(pool: Sequence[int], groups: Sequence[Group],
            rng: random.Random) -> tuple[list[list[int]], list[int]] | None:
    remaining = list(pool)
    out: list[list[int]] = [[] for _ in groups]
    for i in _order(remaining, groups):
        g = groups[i]
        if g.count == 0:
            continue
        allowed = g.allowed
        fits = [k for k, c in enumerate(remaining) if allowed >> c & 1]
        if len(fits) < g.count:
            return None
        chosen = rng.sample(fits, g.count)
        out[i] = [remaining[k] for k in chosen]
        taken = set(chosen)
        remaining = [c for k, c in enumerate(remaining) if k not in taken]
    rng.shuffle(remaining)
    return out, remaining


def _matching(pool: Sequence[int], groups: Sequence[Group],
              rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """A consistent deal by maximum bipartite matching, or :class:`InconsistentError`."""
    slots = [i for i, g in enumerate(groups) for _ in range(g.count)]
    rng.shuffle(slots)
    cards = list(range(len(pool)))
    owner: dict[int, int] = {}  # pool index -> slot index

    def admissible(slot: int) -> list[int]:
        allowed = groups[slots[slot]].allowed
        fits = [k for k in cards if allowed >> pool[k] & 1]
        rng.shuffle(fits)
        return fits

    options = [admissible(s) for s in range(len(slots))]

    def augment(slot: int, seen: set[int]) -> bool:
        for k in options[slot]:
            if k in seen:
                continue
            seen.add(k)
            if k not in owner or augment(owner[k], seen):
                owner[k] = slot
                return True
        return False

    for slot in range(len(slots)):
        if not augment(slot, set()):
            raise InconsistentError("no deal of the unseen cards satisfies every inference")
    out: list[list[int]] = [[] for _ in groups]
    for k, slot in owner.items():
        out[slots[slot]].append(pool[k])
    rest = [pool[k] for k in cards if k not in owner]
    rng.shuffle(rest)
    return out, rest


def satisfies(hand: Sequence[int], groups: Sequence[Group]) -> bool:
    """Whether ``hand`` (one seat's cards) can be split over ``groups`` (that seat's groups).

    Used by tests and the tracker's self-check: the truth must always satisfy the inferences.
    """
    slots = [i for i, g in enumerate(groups) for _ in range(g.count)]
    if len(slots) != len(hand):
        return False
    owner: dict[int, int] = {}

    def augment(card_index: int, seen: set[int]) -> bool:
        card = hand[card_index]
        for s, gi in enumerate(slots):
            if s in seen or not groups[gi].allowed >> card & 1:
                continue
            seen.add(s)
            if s not in owner or augment(owner[s], seen):
                owner[s] = card_index
                return True
        return False

    return all(augment(k, set()) for k in range(len(hand)))

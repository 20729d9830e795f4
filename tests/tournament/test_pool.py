"""Which warm instances the runner starts before play (``first_wave``): the slots the first
matches use, so that no second wave of starts follows a moment later."""

from __future__ import annotations

import collections

import pytest

from referee.tournament.config import TournamentConfig
from referee.tournament.pool import first_wave
from referee.tournament.schedule import Match, Schedule


def matches(bots: int, table_size: int) -> list[Match]:
    config = TournamentConfig.make(game="crazy-eights", rules="classic", table_size=table_size,
                                   bots=[f"b{i}" for i in range(bots)], seed=1, deal_groups=4)
    return [m for g in Schedule.from_config(config).groups() for m in g.matches]


@pytest.mark.parametrize(
    ("concurrency", "expected"),
    [
        # one worker: the group's two rotations follow each other, both slots start at once
        (1, {("b0", 0): 1, ("b1", 0): 1, ("b0", 1): 1, ("b1", 1): 1}),
        # two workers: the group's two rotations run side by side
        (2, {("b0", 0): 1, ("b1", 0): 1, ("b0", 1): 1, ("b1", 1): 1}),
        # four: two groups at once, two instances of every slot
        (4, {("b0", 0): 2, ("b1", 0): 2, ("b0", 1): 2, ("b1", 1): 2}),
    ],
)
def test_heads_up(concurrency: int, expected: dict[tuple[str, int], int]) -> None:
    assert collections.Counter(first_wave(matches(2, 2), concurrency)) == expected


def test_every_slot_of_the_first_groups_and_no_more() -> None:
    played = matches(3, 3)  # one table of three: three rotations per group
    wave = collections.Counter(first_wave(played, 2))
    assert wave == {(b, r): 1 for b in ("b0", "b1", "b2") for r in range(3)}
    assert first_wave([], 2) == []

"""The ismcts bot plays every preset legally, in-process, in a real process and in Docker.

In-process matches go through the referee's codec and the SDK's views (the strength
benchmark's harness), so an illegal answer raises there. The process and Docker matches use the
real referee service, the real sandboxes and the real clock: the bot must answer every decision
itself, with no strike.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import docker
import docker.errors
import pytest

from ismcts_strength import load_bot_module, play_match
from referee.cli_play import play_match as referee_match
from referee.games.crazy_eights.rules import PRESETS
from referee.match_types import Clocks, MatchConfig, MatchResult
from talon_ismcts.clock import Settings

REPO = Path(__file__).resolve().parents[2]
ISMCTS = REPO / "sample_bots" / "ismcts"
GREEDY = REPO / "sample_bots" / "greedy"


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_every_crazy_eights_preset_is_played_to_the_end(preset: str, players: int) -> None:
    ismcts = load_bot_module("ismcts")
    greedy = load_bot_module("greedy")
    bots = [ismcts.IsmctsBot(Settings(ms=2, seed=s)) if s % 2 == 0 else greedy.GreedyBot() for s in range(players)]
    record = play_match("crazy-eights", preset, bots, seed=7)
    assert sorted(record.places)[0] == 1
    assert all(bot.agent.tracker.resets == 0 for bot in bots if hasattr(bot, "agent"))


def _check(result: MatchResult) -> None:
    assert result.failures == ()
    seat = next(s for s in result.seats if s.name == "ismcts")
    assert not seat.taken_over and seat.strikes == 0 and seat.decisions > 0
    assert seat.think_ms / seat.decisions < 200  # 20 ms searches, well inside the 1 s clock


def test_plays_a_match_through_the_real_referee_as_a_process() -> None:
    config = MatchConfig("crazy-eights", "house", 11, clocks=Clocks(decision_ms=1000, bank_ms=10_000))
    _check(asyncio.run(referee_match(config, [ISMCTS, GREEDY], "process")))


def _docker_or_skip() -> docker.DockerClient:
    reason = ""
    if os.geteuid() != 0:
        reason = "the Docker sandbox needs root"
    else:
        try:
            client = docker.from_env()
            client.ping()
            return client
        except docker.errors.DockerException as error:
            reason = f"no Docker engine: {error}"
    if os.environ.get("TALON_REQUIRE_DOCKER") == "1":
        pytest.fail(f"TALON_REQUIRE_DOCKER=1 but {reason}")
    pytest.skip(reason)


def test_the_image_holds_the_pure_engine_only_and_plays_in_docker() -> None:
    from referee.sandbox.base import BotSpec
    from referee.sandbox.bot_image import ensure_bot_image
    from referee.sandbox.image import BaseImageRecipe, ensure_base_image

    client = _docker_or_skip()
    base = ensure_base_image(client, BaseImageRecipe.from_host()).tag
    image = ensure_bot_image(client, BotSpec.from_dir(ISMCTS), base)
    listing = client.containers.run(image.tag, ["sh", "-c", "cd /bot && find . -name '*.py' | sort"],
                                    remove=True, network_mode="none").decode().split()
    assert "./referee/games/crazy_eights/state.py" in listing and "./referee/cards.py" in listing
    assert "./talon_ismcts/search.py" in listing
    assert not any(p.startswith(("./referee/sandbox", "./referee/tournament")) or p == "./referee/match.py"
                   for p in listing)
    config = MatchConfig("crazy-eights", "classic", 12, clocks=Clocks(decision_ms=1000, bank_ms=10_000))
    _check(asyncio.run(referee_match(config, [ISMCTS, GREEDY], "docker")))

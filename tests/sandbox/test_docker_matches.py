"""Whole matches on the real referee service with bots in the real Docker sandbox: sample
bots play cleanly, warm containers serve several matches, and every protocol-abusing hostile
bot is contained (its seat handed to the fallback player, the other seat unharmed)."""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import docker
import pytest
from sandbox_helpers import HOSTILE, REPO
from sandbox_helpers import escapes, result_of

from referee.match import BotSeat, WarmSeat, run_match
from referee.match_types import Clocks, FailureKind, MatchConfig, MatchResult
from referee.sandbox.base import BotSpec, SeatAccess
from referee.sandbox.docker_sandbox import (
    LABEL_BOT, LABEL_RUN, DockerBotHandle, DockerSandbox, DockerSandboxConfig,
)
from referee.server import RefereeService, ServiceConfig

RANDOM = BotSpec.from_dir(REPO / "sample_bots" / "random")
GREEDY = BotSpec.from_dir(REPO / "sample_bots" / "greedy")
FAST = Clocks(decision_ms=300, bank_ms=600, max_strikes=3)


class RecordingSandbox(DockerSandbox):
    """Keeps each bot's last output, which is gone once its container is removed."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.outputs: dict[str, str] = {}

    async def release(self, handle: DockerBotHandle) -> None:
        self.outputs[handle.container.labels[LABEL_BOT]] = handle.logs()
        await super().release(handle)


@asynccontextmanager
async def referee(client: docker.DockerClient,
                  base: str) -> AsyncIterator[tuple[RefereeService, RecordingSandbox]]:
    with tempfile.TemporaryDirectory(prefix="talon-") as tmp:
        async with RefereeService(ServiceConfig(bot_unix=Path(tmp) / "r.sock")) as service:
            sandbox = RecordingSandbox(service, DockerSandboxConfig(base_image=base), client)
            try:
                yield service, sandbox
            finally:
                await sandbox.close()
        assert client.containers.list(all=True,
                                      filters={"label": f"{LABEL_RUN}={sandbox.run_id}"}) == []


async def _match(service: RefereeService, sandbox: DockerSandbox, bots: list[BotSpec],
                 seed: int = 3, clocks: Clocks = FAST) -> MatchResult:
    config = MatchConfig("crazy-eights", "classic", seed, clocks=clocks)
    return await run_match(config, [BotSeat(b) for b in bots], service=service, sandbox=sandbox)


def test_sample_bots_play_a_clean_match(docker_client: docker.DockerClient,
                                        base_image: str) -> None:
    async def scenario() -> None:
        async with referee(docker_client, base_image) as (service, sandbox):
            result = await _match(service, sandbox, [RANDOM, GREEDY],
                                  clocks=Clocks(decision_ms=2000, bank_ms=5000))
            assert result.failures == (), result.failures
            assert sorted(s.place for s in result.seats) == [1, 2]

    asyncio.run(scenario())


def test_warm_containers_serve_matches_in_a_row(docker_client: docker.DockerClient,
                                                base_image: str) -> None:
    async def scenario() -> None:
        async with referee(docker_client, base_image) as (service, sandbox):
            handles = [await sandbox.start(bot, SeatAccess(address="")) for bot in
                       (RANDOM, GREEDY)]
            seats = [WarmSeat(h.container.labels[LABEL_BOT], h, h.token_file) for h in handles]
            config = MatchConfig("crazy-eights", "classic", 0,
                                 clocks=Clocks(decision_ms=2000, bank_ms=5000))
            for seed in range(3):
                result = await run_match(dataclasses.replace(config, seed=seed), seats,
                                         service=service, sandbox=sandbox)
                assert result.failures == (), result.failures
            assert all(h.is_alive() for h in handles)
            ids = {str(h.container.id) for h in handles}
            for handle in handles:
                handle.retire()
            for handle in handles:
                status = await handle.wait_exit(10)
                assert not status.running and status.exit_code == 0, handle.logs()
            assert ids == {str(h.container.id) for h in handles}  # same containers throughout

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("name", "kind", "taken_over"),
    [
        ("huge_message", FailureKind.CRASHED, True),
        ("flood", FailureKind.PROTOCOL_ERROR, True),
        ("out_of_turn", FailureKind.PROTOCOL_ERROR, True),
        ("exit_mid_match", FailureKind.CRASHED, True),
        ("cpu_spin", FailureKind.TIMEOUT, True),
        ("wrong_token", None, False),
    ],
)
def test_protocol_abusers_are_contained(docker_client: docker.DockerClient, base_image: str,
                                        name: str, kind: FailureKind | None,
                                        taken_over: bool) -> None:
    async def scenario() -> None:
        async with referee(docker_client, base_image) as (service, sandbox):
            result = await _match(service, sandbox, [BotSpec.from_dir(HOSTILE / name), RANDOM])
            hostile, other = result.seats
            assert hostile.taken_over is taken_over, result.failures
            assert other.strikes == 0 and not other.taken_over
            assert all(f.seat == 0 for f in result.failures)
            if kind is not None:  # the failure that took the seat over: a flooder's first real
                # request may time out while its stream is still full of bogus answers
                assert result.failures and result.failures[-1].kind == kind, result.failures
            else:
                assert result.failures == ()
            output = sandbox.outputs.get(name, "")
            assert escapes(output) == [], output
            if name in ("huge_message", "wrong_token"):
                assert set(result_of(output).values()) == {"blocked"}, output

    asyncio.run(scenario())

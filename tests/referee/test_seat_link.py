"""The seat link's bookkeeping when a bot floods it: once enough violations are pending for the
seat to be lost, no decision may wait for an answer that the stopped reader will never read."""

from __future__ import annotations

import asyncio

from referee.match_seat import Outcome, SeatLink
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb


def _bogus(request_id: int) -> bpb.BotMessage:
    return bpb.BotMessage(answer=bpb.Answer(request_id=request_id))


class _Context:
    """Stands in for the gRPC stream's write side only (the link's reader is not involved)."""

    def __init__(self) -> None:
        self.written: list[bpb.RefereeMessage] = []

    async def write(self, message: bpb.RefereeMessage) -> None:
        self.written.append(message)


def test_a_pending_decision_ends_when_the_reader_stops_on_violations() -> None:
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3)
        link.attach(_Context())
        asking = asyncio.ensure_future(link.ask(bpb.RefereeMessage(), 1, 60.0))
        await asyncio.sleep(0)  # the request is written and waits for its answer
        assert [link.receive(_bogus(10_000_000 + i)) for i in range(3)] == [True, True, False]
        outcome, elapsed = await asyncio.wait_for(asking, 1.0)  # not the 60 s clock
        assert outcome is Outcome.VIOLATIONS and elapsed < 1.0
        assert len(link.violations) == 3 and all(v.startswith("protocol: answer names request")
                                                 for v in link.violations)

    asyncio.run(scenario())


def test_a_decision_asked_after_the_reader_stopped_does_not_wait() -> None:
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=2)
        context = _Context()
        link.attach(context)
        assert [link.receive(_bogus(10_000_000 + i)) for i in range(2)] == [True, False]
        outcome, _ = await asyncio.wait_for(link.ask(bpb.RefereeMessage(), 1, 60.0), 1.0)
        assert outcome is Outcome.VIOLATIONS
        assert context.written == []  # nothing sent to a bot whose answers nobody reads

    asyncio.run(scenario())

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
        assert len(link.violations) == 3 and all(words.startswith("protocol: answer names request")
                                                 for _, words in link.violations)

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


class _Stalled(_Context):
    """A bot that stopped reading: its flow-control window is full, so a write never completes."""

    async def write(self, message: bpb.RefereeMessage) -> None:
        await asyncio.Event().wait()


def test_a_request_that_cannot_be_written_ends_at_its_write_limit() -> None:
    """A bot that stops reading blocks the referee's write; the seat's timer ends it once the
    write has waited its limit (before, the match loop waited in the write for ever, and the
    other seats with it)."""
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3, send_limit_s=0.3)
        link.attach(_Stalled())
        outcome, elapsed = await asyncio.wait_for(link.ask(bpb.RefereeMessage(), 1, 0.05), 5.0)
        assert outcome is Outcome.CLOSED and 0.3 <= elapsed < 1.0
        assert link.close_is_protocol_error and "the bot stopped reading its stream" in link.close_reason
        assert not link.is_open

    asyncio.run(scenario())


def test_a_stalled_request_ends_at_its_write_limit_even_before_a_long_deadline() -> None:
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3, send_limit_s=0.2)
        link.attach(_Stalled())
        outcome, elapsed = await asyncio.wait_for(link.ask(bpb.RefereeMessage(), 1, 30.0), 5.0)
        assert outcome is Outcome.CLOSED and 0.2 <= elapsed < 1.0
        assert "the bot stopped reading its stream" in link.close_reason

    asyncio.run(scenario())


class _Slow(_Context):
    """A bot that reads, but whose request write completes late (a loaded machine)."""

    async def write(self, message: bpb.RefereeMessage) -> None:
        await asyncio.sleep(0.15)
        self.written.append(message)


def test_a_request_written_after_its_deadline_is_a_timeout_not_a_lost_stream() -> None:
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3, send_limit_s=2.0)
        context = _Slow()
        link.attach(context)
        outcome, elapsed = await asyncio.wait_for(link.ask(bpb.RefereeMessage(), 1, 0.05), 5.0)
        assert outcome is Outcome.TIMEOUT and elapsed >= 0.15
        assert link.is_open and not link.close_reason and len(context.written) == 1
        # the next decision goes on as usual, and the late answer to the first is dropped
        assert link.receive(bpb.BotMessage(answer=bpb.Answer(request_id=1)))
        assert link.violations == []

    asyncio.run(scenario())


def test_any_other_message_that_cannot_be_written_ends_after_its_limit() -> None:
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3)
        link.attach(_Stalled())
        assert await asyncio.wait_for(link.send(bpb.RefereeMessage(), limit_s=0.05), 5.0) is False
        assert link.close_is_protocol_error and "stopped reading" in link.close_reason

    asyncio.run(scenario())


def test_a_task_cancelled_while_it_writes_a_request_stays_cancelled() -> None:
    """Only the deadline's own cancel is turned into a lost stream: a shutdown still cancels."""
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3)
        link.attach(_Stalled())
        asking = asyncio.ensure_future(link.ask(bpb.RefereeMessage(), 1, 60.0))
        await asyncio.sleep(0.01)
        asking.cancel()
        try:
            await asking
        except asyncio.CancelledError:
            pass
        else:
            raise AssertionError("the cancel was swallowed")

    asyncio.run(scenario())


def test_an_answer_read_as_the_clock_runs_out_is_late_not_a_second_answer() -> None:
    """The timer resolves the decision as a timeout; an answer the reader hands over in that same
    loop turn (before the match resumes) is late and dropped, not 'answered twice'."""
    async def scenario() -> None:
        link = SeatLink("m", 0, "t", max_violations=3)
        link.attach(_Context())
        asking = asyncio.ensure_future(link.ask(bpb.RefereeMessage(), 7, 60.0))
        await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        link._deadline = loop.time()  # the clock runs out now: the timer's callback, then the
        link._on_timer(loop)          # reader's hand-over, in one turn of the loop
        assert link.receive(bpb.BotMessage(answer=bpb.Answer(request_id=7)))
        outcome, _ = await asking
        assert outcome is Outcome.TIMEOUT and link.violations == []

    asyncio.run(scenario())

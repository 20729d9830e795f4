"""One seat's link to its bot: the stream, the reader, and the pending decision.

Why a future and a timer instead of ``asyncio.wait_for(stream.read())``: cancelling a pending
gRPC read breaks the stream (measured: the next read returns EOF and the bot's next write fails
with INTERNAL), so the first late answer would kill the bot's session. Instead one reader per
stream (the gRPC handler's task) runs for the whole match and hands each answer to the pending
decision's future. The per-decision clock is one timer per seat that is re-armed, not
recreated: creating and cancelling a ``call_later`` handle per decision cost about 14 us of the
referee's CPU and 12 us of latency per decision (measured against the bare ping-pong), and a
``wait_for`` task per decision costs more still. Late answers are matched to their request
id and dropped; answers to no request are protocol violations, counted and reported.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import Callable
from typing import Any

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2 as bpb


SEND_LIMIT_S = 5.0
"""How long a message may take to be written before the bot counts as no longer reading its
stream. A request still being written at its decision's deadline is a timeout; only a request
still unwritten this long after its write began ends the stream (on a loaded machine a write's
completion can lag a short deadline while the bot reads as it should)."""
_STOPPED_READING = ("protocol: the bot stopped reading its stream (the referee could not write to it): a bot "
                    "must read every message the referee sends")


class Outcome(enum.Enum):
    """How a pending decision ended other than with an answer."""

    TIMEOUT = "timeout"
    CLOSED = "closed"
    VIOLATIONS = "violations"
    """The bot broke the protocol often enough to lose its seat; its reader stopped, so no
    answer will come: the loop reports the violations at once instead of waiting out the clock."""


class LinkState(enum.Enum):
    WAITING = "waiting"
    CLAIMED = "claimed"
    """A stream presented the token; the Welcome is on its way."""
    CONNECTED = "connected"
    CLOSED = "closed"


class SeatLink:
    """The referee's end of one seat's bot stream (created by the service per seat)."""

    def __init__(self, match_id: str, seat: int, token: str, max_violations: int,
                 send_limit_s: float = SEND_LIMIT_S) -> None:
        self.match_id = match_id
        self.seat = seat
        self.token = token
        self.state = LinkState.WAITING
        self.connected = asyncio.Event()
        self.finished = asyncio.Event()
        """Set when the handler must end the stream (match over, or seat taken over)."""
        self.close_reason = ""
        """Why the stream ended early, in words (empty while it is open)."""
        self.close_is_protocol_error = False
        """Whether the stream ended because the bot broke the protocol (else: crash/disconnect)."""
        self.abort_code: grpc.StatusCode | None = None
        self.abort_details = ""
        self.violations: list[tuple[int, str]] = []
        """Protocol violations seen by the reader, not yet reported by the match loop: (the
        decision during which it came, words)."""
        self.on_violation: Callable[[], None] = lambda: None
        self.decision_now: Callable[[], int] = lambda: 0
        """The match's decision index now (set by the match loop): a violation or the stream's
        end is recorded at the decision during which it happened, not when the loop looks."""
        self.lost_at = -1
        """The decision during which the stream ended or broke (-1: it has not)."""
        self._over = False
        """MatchOver is being sent: from now on the bot closing its side is the normal end."""
        self._max_violations = max_violations
        self.welcome: bpb.RefereeMessage | None = None
        """Sent by the handler as soon as the token is accepted, before any request."""
        self._context: Any = None
        self._next_id = 1
        self._pending_id = 0
        self._pending: asyncio.Future[Any] | None = None
        self._answered_at = 0.0
        self._expired: set[int] = set()
        self._unread = False
        """The reader stopped on too many violations: no answer can be read any more."""
        self._deadline = 0.0
        """``loop.time()`` at which the pending decision times out."""
        self._writer: asyncio.Task[Any] | None = None
        """The task writing a request right now: a bot that stopped reading blocks that write
        (its flow-control window is full), and the deadline timer then cancels it."""
        self._write_stalled = False
        self._write_started = 0.0
        """``loop.time()`` when the request being written (``_writer``) began."""
        self._send_limit_s = send_limit_s
        self._timer: asyncio.TimerHandle | None = None
        """The seat's one deadline timer; it may be armed for an earlier decision's deadline, in
        which case it fires early and re-arms itself (see :meth:`_arm`)."""

    # --- the handler's side -------------------------------------------------------------------

    def claim(self) -> None:
        """Reserve the seat for the stream that presented the token (no await in between)."""
        self.state = LinkState.CLAIMED

    def attach(self, context: Any) -> None:
        """Bind the authenticated stream; the service checked the token and the state."""
        self._context = context
        self.state = LinkState.CONNECTED
        self.connected.set()

    def receive(self, message: bpb.BotMessage) -> bool:
        """Hand one message from the bot to the loop; False when the reader should stop."""
        if message.WhichOneof("message") == "answer":
            answer = message.answer
            pending = self._pending
            if pending is not None and answer.request_id == self._pending_id and not pending.done():
                self._answered_at = time.perf_counter()
                pending.set_result(answer)
                return True
            if answer.request_id in self._expired:
                self._expired.discard(answer.request_id)
                return True  # a late answer to a decision that timed out: dropped
            if self._pending_id and answer.request_id == self._pending_id:
                words = f"answered request {answer.request_id} twice"
            elif self._pending is None or self._pending.done():
                words = f"answer to request {answer.request_id} out of turn: no decision of this seat is pending"
            else:
                words = f"answer names request {answer.request_id}, but the pending request is {self._pending_id}"
            self._violate(f"protocol: {words}")
        elif message.WhichOneof("message") == "hello":
            self._violate("protocol: a second Hello; send Hello once, then only Answers")
        else:
            self._violate("protocol: an empty BotMessage; send an Answer")
        if len(self.violations) < self._max_violations:
            return True
        self._unread = True  # the reader stops now: a decision waiting for this bot would hang
        pending = self._pending
        if pending is not None and not pending.done():
            pending.set_result(Outcome.VIOLATIONS)
        return False

    def _violate(self, words: str) -> None:
        self.violations.append((self.decision_now(), words))
        self.on_violation()

    def lost(self, reason: str, protocol_error: bool = False) -> None:
        """The stream ended or broke: fail the pending decision and refuse further sends."""
        if self.state is LinkState.CLOSED:
            return
        if self._over:  # a bot that closes its side when it reads MatchOver ends the stream as it should
            self.finish()
            return
        self.state = LinkState.CLOSED
        self.lost_at = self.decision_now()
        self.close_reason = reason
        self.close_is_protocol_error = protocol_error
        self._context = None
        self._end_pending()
        self.finished.set()

    # --- the match loop's side ----------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.state is LinkState.CONNECTED

    async def send(self, message: bpb.RefereeMessage, limit_s: float | None = None) -> bool:
        """Write to the bot; False (and the link closed) if the stream is gone, or if the write
        waited ``limit_s`` seconds: the bot stopped reading, and must not hold up its match."""
        context = self._context
        if context is None:
            return False
        try:
            await asyncio.wait_for(context.write(message), self._send_limit_s if limit_s is None else limit_s)
        except asyncio.TimeoutError:
            self.lost(_STOPPED_READING, protocol_error=True)
            return False
        except Exception as err:  # noqa: BLE001 - any write failure means the stream is gone
            self.lost(f"the stream broke while sending ({type(err).__name__})")
            return False
        return True

    async def _send_request(self, message: bpb.RefereeMessage, now: float) -> bool:
        """:meth:`send` for a request (begun at loop time ``now``), with no timer of its own (this
        is every decision's path): the seat's timer cancels a write still blocked
        :data:`SEND_LIMIT_S` after it began."""
        context = self._context
        if context is None:
            return False
        self._writer = asyncio.current_task()
        self._write_started = now
        try:
            await context.write(message)
        except asyncio.CancelledError:
            if not self._write_stalled:
                raise
            if self._writer is not None:
                self._writer.uncancel()
            self.lost(_STOPPED_READING, protocol_error=True)
            return False
        except Exception as err:  # noqa: BLE001 - any write failure means the stream is gone
            self.lost(f"the stream broke while sending ({type(err).__name__})")
            return False
        finally:
            self._writer = None
            self._write_stalled = False
        return True

    async def ask(self, message: bpb.RefereeMessage, request_id: int, hard_s: float) -> tuple[Any, float]:
        """Send a request and wait for its answer at most ``hard_s`` seconds.

        Returns ``(answer or Outcome, elapsed seconds)``; elapsed runs from just before the
        write to the moment the reader received the answer (or the timer fired).
        """
        if self._unread:  # asked between the reader stopping and the loop reporting why
            return Outcome.VIOLATIONS, 0.0
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._pending = future
        self._pending_id = request_id
        start = time.perf_counter()
        now = loop.time()
        self._arm(loop, now + hard_s, now + min(hard_s, self._send_limit_s))
        if not await self._send_request(message, now):
            return Outcome.CLOSED, time.perf_counter() - start
        result = await future
        if result is Outcome.TIMEOUT:
            return result, time.perf_counter() - start
        if result is Outcome.CLOSED or result is Outcome.VIOLATIONS:
            return result, time.perf_counter() - start
        return result, self._answered_at - start

    async def farewell(self, message: bpb.RefereeMessage) -> None:
        """Send MatchOver and end the stream with status OK. The bot may close its side as soon
        as it reads the message, even before this write completes: that is no early end."""
        self._over = True
        await self.send(message)
        self.finish()

    def new_request_id(self) -> int:
        rid = self._next_id
        self._next_id += 1
        return rid

    def finish(self, code: grpc.StatusCode | None = None, details: str = "") -> None:
        """End the stream: with status OK, or with ``code`` (seat taken over, shutdown)."""
        self.abort_code = code
        self.abort_details = details
        self.state = LinkState.CLOSED
        self._end_pending()
        self.finished.set()

    def _end_pending(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending = self._pending
        if pending is not None and not pending.done():
            pending.set_result(Outcome.CLOSED)

    # --- the deadline timer -------------------------------------------------------------------

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float, wake: float) -> None:
        """Set the decision's ``deadline`` and make sure the timer fires no later than ``wake``
        (loop times; ``wake`` is at most the deadline: the request's write limit may end first)."""
        self._deadline = deadline
        timer = self._timer
        if timer is not None:
            if timer.when() <= wake:
                return  # fires early, sees the later times, re-arms
            timer.cancel()
        self._timer = loop.call_at(wake, self._on_timer, loop)

    def _on_timer(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        now = loop.time()
        pending, writer = self._pending, self._writer
        if writer is not None and now >= self._write_started + self._send_limit_s:
            self._write_stalled = True  # the bot stopped reading: its window is full, the write hangs
            writer.cancel()
            return
        wake: float | None = None
        if pending is not None and not pending.done():
            if now < self._deadline:
                wake = self._deadline
            else:
                # expired before the future resolves: an answer read in the same loop turn,
                # before ask() resumes, is late (dropped), not a second answer
                self._expired.add(self._pending_id)
                pending.set_result(Outcome.TIMEOUT)
        if writer is not None:  # still writing the request: a timeout now, a lost stream at its limit
            stalled_at = self._write_started + self._send_limit_s
            wake = stalled_at if wake is None else min(wake, stalled_at)
        if wake is not None:
            self._timer = loop.call_at(wake, self._on_timer, loop)

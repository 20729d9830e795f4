"""The match loop: one match between bots, refereed, clocked and recorded.

Use :func:`run_match` from anywhere (the CLI, the control API, the tournament runner)::

    result = await run_match(MatchConfig("crazy-eights", "classic", seed=7),
                             [BotSeat(BotSpec.from_dir("sample_bots/random"))] * 2,
                             service=service, sandbox=ProcessSandbox())

Seats come in three kinds: :class:`BotSeat` (the sandbox starts the bot for this match and
stops it after), :class:`WarmSeat` (a bot already running with ``TALON_TOKEN_FILE``: it gets a
fresh token per match through that file and keeps running) and :class:`ExternalSeat` (the
caller runs the bot and receives the token through ``on_tokens``).

Policy, in one place: a timeout, an illegal action or a protocol error is a strike and the
fallback player (:mod:`referee.match_fallback`) takes that decision; ``max_strikes`` strikes
or a crash/disconnect hand the seat to the fallback for the rest of the match. A seat taken
over is ranked after every other seat. Every failure is recorded with its kind and the index of
the decision during which it happened, and reported to the bot in words.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import grpc

from referee.games import IllegalActionError, MatchState, make_rules, new_match
from referee.match_fallback import fallback_action
from referee.match_seat import Outcome, SeatLink
from referee.match_types import Failure, FailureKind, MatchConfig, MatchResult, SeatResult
from referee.match_wire import EventCache, GameCodec, ProtocolViolation, bounded, illegal_words, legal_complete
from referee.replay import build_replay
from referee.sandbox.base import PYTHON_ENTRY, BotHandle, BotSpec, Sandbox, SandboxError, SeatAccess, printable
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb

LOGGER = logging.getLogger(__name__)
_EXIT_GRACE_S = 1.0
"""How long a single-match bot may take to exit by itself after its stream ended."""
_EXIT_WAIT_S = 0.5
"""How long to wait for a disconnected bot's process to exit, to report the crash in full."""


@dataclasses.dataclass(frozen=True)
class BotSeat:
    """A bot the sandbox starts for this match only."""

    bot: BotSpec
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.bot.name


@dataclasses.dataclass(frozen=True)
class WarmSeat:
    """A bot already running (started with ``TALON_TOKEN_FILE``); it stays up after the match."""

    name: str
    handle: BotHandle
    token_file: Path

    @property
    def label(self) -> str:
        return self.name


@dataclasses.dataclass(frozen=True)
class ExternalSeat:
    """A bot the caller runs itself; its token is handed out through ``on_tokens``."""

    name: str

    @property
    def label(self) -> str:
        return self.name


SeatSpec = BotSeat | WarmSeat | ExternalSeat


class MatchEntry(Protocol):
    """What the service keeps for a match: the seats' links and the public record's watchers."""

    links: list[SeatLink]

    def attach_source(self, source: Callable[[], Sequence[gpb.Event]]) -> None: ...

    def has_watchers(self) -> bool: ...

    def publish(self, events: Sequence[gpb.Event]) -> None: ...

    def finish(self, result: bpb.MatchResult) -> None: ...


class MatchHost(Protocol):
    """The service side run_match needs (implemented by :class:`referee.server.RefereeService`)."""

    @property
    def bot_target(self) -> str: ...

    def open_match(self, match_id: str, names: Sequence[str], max_violations: int) -> MatchEntry: ...

    def close_match(self, match_id: str) -> None: ...


def write_token_file(path: Path, token: str) -> None:
    """Give a warm bot its next seat: replace the file atomically (the bot watches it)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(token)
    os.replace(tmp, path)


@dataclasses.dataclass
class _Seat:
    index: int
    spec: SeatSpec
    link: SeatLink
    bank_ms: float
    handle: BotHandle | None = None
    strikes: int = 0
    taken_over: bool = False
    events_sent: int = 0
    decisions: int = 0
    think_s: float = 0.0


async def run_match(
    config: MatchConfig,
    seats: Sequence[SeatSpec],
    *,
    service: MatchHost,
    sandbox: Sandbox | None = None,
    on_tokens: Callable[[str, list[str]], None] | None = None,
) -> MatchResult:
    """Play one match to the end and return its frozen result (see the module docstring).

    :raises referee.games.RulesError: for a bad game, preset, switch or number of seats.
    :raises ValueError: for a :class:`BotSeat` without a sandbox.
    """
    if any(isinstance(s, BotSeat) for s in seats) and sandbox is None:
        raise ValueError("a BotSeat needs a sandbox to start its bot (pass sandbox=...)")
    match = _Match(config, seats, service, sandbox)
    return await match.run(on_tokens)


class _Match:
    def __init__(self, config: MatchConfig, specs: Sequence[SeatSpec], service: MatchHost,
                 sandbox: Sandbox | None) -> None:
        self.config = config
        self.rules = make_rules(config.game, config.preset, config.overrides)
        self.state: MatchState[Any] = new_match(config.game, self.rules, len(specs), config.seed)
        self.match_id = config.match_id or secrets.token_hex(6)
        self.service = service
        self.sandbox = sandbox
        self.codec = GameCodec(config.game)
        self.events = EventCache()
        self.clocks = config.clocks
        self.entry = service.open_match(self.match_id, [s.label for s in specs], self.clocks.max_strikes)
        self.seats = [
            _Seat(i, spec, link, float(self.clocks.bank_ms)) for i, (spec, link) in enumerate(zip(specs, self.entry.links))
        ]
        self.failures: list[Failure] = []
        self.records: list[tuple[int, Any, bool, float, str]] = []
        """(seat, action, played by the fallback, think seconds, the action's text) per decision.
        The text is written when the action is played: a Rummy action's text depends on the deal
        (which rank is wild), so the final state could not name the earlier deals' actions."""
        self.clock: list[float] = []
        self._violations = False
        self.entry.attach_source(lambda: self.events.upto(self.state))
        self._prepare_welcomes()
        for seat in self.seats:
            seat.link.on_violation = self._flag_violation
            seat.link.decision_now = self._decision_now

    def _decision_now(self) -> int:
        return len(self.records)

    def _flag_violation(self) -> None:
        self._violations = True

    async def run(self, on_tokens: Callable[[str, list[str]], None] | None) -> MatchResult:
        start = time.perf_counter()
        finished = False
        try:
            await self._start_bots(on_tokens)
            await self._await_connections()
            while not self.state.is_over:
                await self._step()
                if self._violations:
                    await self._report_violations()
            result = self._result(time.perf_counter() - start)
            await self._farewell(result)
            finished = True
            return result
        finally:
            if not finished:
                for seat in self.seats:
                    seat.link.finish(grpc.StatusCode.ABORTED, "the referee stopped this match (shutting down)")
            self.service.close_match(self.match_id)
            await self._stop_bots()

    # --- before the first decision ------------------------------------------------------------

    async def _start_bots(self, on_tokens: Callable[[str, list[str]], None] | None) -> None:
        target = self.service.bot_target

        async def start(seat: _Seat) -> None:
            spec = seat.spec
            if isinstance(spec, BotSeat) and self.sandbox is not None:
                try:
                    seat.handle = await self.sandbox.start(spec.bot, SeatAccess(target, token=seat.link.token))
                except SandboxError as err:
                    await self._fail(seat, FailureKind.CRASHED, f"crashed: the bot could not be started: {err}", takeover=True)
            elif isinstance(spec, WarmSeat):
                seat.handle = spec.handle
                write_token_file(spec.token_file, seat.link.token)

        await asyncio.gather(*(start(seat) for seat in self.seats))
        if on_tokens is not None:
            on_tokens(self.match_id, [seat.link.token for seat in self.seats])

    async def _await_connections(self) -> None:
        deadline = time.monotonic() + self.clocks.connect_timeout_ms / 1000
        waiting = [s for s in self.seats if not s.taken_over]
        while waiting and time.monotonic() < deadline:
            waiting = [s for s in waiting if not s.link.connected.is_set()]
            for seat in [s for s in waiting if s.handle is not None and not s.handle.is_alive()]:
                waiting.remove(seat)
                output = _output(seat.handle)
                await self._fail(seat, FailureKind.CRASHED, "crashed: the bot exited before connecting"
                                 + ("" if output else _silent_exit_hint(seat.spec)), takeover=True, output=output)
            if waiting:  # on at the first connection; every 10 ms to see whether a bot died
                await _any_set([s.link.connected for s in waiting], 0.01)
        for seat in waiting:
            if not seat.link.connected.is_set():
                await self._fail(seat, FailureKind.CRASHED, _no_connection(seat.spec, self.clocks.connect_timeout_ms),
                                 takeover=True, output=_output(seat.handle))

    def _prepare_welcomes(self) -> None:
        """Each seat's Welcome, sent by the service the moment the bot's token is accepted."""
        rules = gpb.RuleSet(game=self.config.game, preset=self.config.preset,
                            overrides_json=_json(self.rules.overrides()), switches_json=_json(self.rules.switches()))
        clocks = bpb.Clocks(decision_ms=self.clocks.decision_ms, bank_ms=self.clocks.bank_ms,
                            max_strikes=self.clocks.max_strikes)
        names = [s.spec.label for s in self.seats]
        for seat in self.seats:
            seat.link.welcome = bpb.RefereeMessage(welcome=bpb.Welcome(
                match_id=self.match_id, seat=seat.index, num_players=len(self.seats), rules=rules,
                clocks=clocks, seat_names=names))

    # --- one decision -------------------------------------------------------------------------

    async def _step(self) -> None:
        state = self.state
        seat = self.seats[state.current_player]
        think = 0.0
        if not seat.taken_over:
            applied, text, think = await self._ask(seat)
            if applied is not None:
                self.records.append((seat.index, applied, False, think, text))
                self.clock.append(time.perf_counter())
                seat.decisions += 1
                seat.think_s += think
                self._publish()
                return
        action = fallback_action(state)
        text = state.action_name(action)
        state.apply(action)
        self.records.append((seat.index, action, True, think, text))
        self.clock.append(time.perf_counter())
        self._publish()

    async def _ask(self, seat: _Seat) -> tuple[Any, str, float]:
        """Ask the seat's bot; return (the action it played, its text, think seconds), or
        (None, "", think seconds)."""
        state = self.state
        link = seat.link
        if not link.is_open:
            await self._crash(seat, 0)
            return None, "", 0.0
        decision_ms = self.clocks.decision_ms
        bank = seat.bank_ms
        encoded = self.events.upto(state)
        events = encoded[seat.events_sent:]
        seat.events_sent = len(encoded)
        rid = link.new_request_id()
        legal = state.legal_actions()
        request = self.codec.request(rid, len(self.records), decision_ms, int(bank), state.view(seat.index),
                                     legal, legal_complete(state), events)
        answer, elapsed = await link.ask(request, rid, (decision_ms + bank) / 1000)
        over_ms = elapsed * 1000 - decision_ms
        if over_ms > 0:
            seat.bank_ms = max(0.0, bank - over_ms)
        if answer is Outcome.TIMEOUT:
            seat.bank_ms = 0.0
            await self._fail(seat, FailureKind.TIMEOUT,
                             f"timeout: no answer to request {rid} within {decision_ms} ms plus {int(bank)} ms of "
                             "time bank; the fallback player took this decision", rid)
            return None, "", elapsed
        if answer is Outcome.CLOSED:
            await self._crash(seat, rid)
            return None, "", elapsed
        if answer is Outcome.VIOLATIONS:  # reported right after this step; they end the seat
            return None, "", elapsed
        try:
            action = self.codec.decode(answer.action, state)
            text = state.action_name(action)
            state.apply(action)
        except ProtocolViolation as err:
            await self._fail(seat, FailureKind.PROTOCOL_ERROR, str(err), rid)
            return None, "", elapsed
        except IllegalActionError as err:
            await self._fail(seat, FailureKind.ILLEGAL, illegal_words(err), rid)
            return None, "", elapsed
        except (TypeError, KeyError, ValueError) as err:
            await self._fail(seat, FailureKind.PROTOCOL_ERROR, bounded(f"protocol: cannot read the action: {err}"), rid)
            return None, "", elapsed
        return action, text, elapsed

    async def _crash(self, seat: _Seat, request_id: int) -> None:
        """Record a seat whose stream is gone, at the decision during which it went; the seat is
        taken over. Waits briefly for the bot's process, whose output may say why."""
        link = seat.link
        why = link.close_reason or "its stream ended"
        decision = link.lost_at if link.lost_at >= 0 else None
        if link.close_is_protocol_error:
            words = why if why.startswith("protocol") else f"protocol: {why}"
            await self._fail(seat, FailureKind.PROTOCOL_ERROR, words, request_id, takeover=True, decision=decision)
            return
        handle = seat.handle
        deadline = time.monotonic() + _EXIT_WAIT_S
        while handle is not None and handle.is_alive() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if handle is not None and not handle.is_alive():
            logs = _logs(handle)  # a traceback says why; else the stream's end may (a refused message)
            output = _tail(logs)
            cause = "" if "Traceback (most recent call last)" in logs else f" ({why})"
            words = f"crashed: the bot's process exited before the match ended{cause}"
        else:
            output, words = "", f"crashed: the bot disconnected ({why})"
        await self._fail(seat, FailureKind.CRASHED, words, request_id, takeover=True, output=output, decision=decision)

    async def _fail(self, seat: _Seat, kind: FailureKind, words: str, request_id: int = 0,
                    takeover: bool = False, output: str = "", decision: int | None = None) -> None:
        """Record a failure, strike the seat, tell the bot, hand the seat over if due.

        ``output``: the bot's last output, for the operator only (never sent to a bot: it may
        hold the bot's cards); ``decision``: when it happened, if before the current one."""
        seat.strikes += 1
        if decision is None:
            decision = len(self.records)
        self.failures.append(Failure(seat.index, kind, decision, words, output))
        hand_over = not seat.taken_over and (takeover or seat.strikes >= self.clocks.max_strikes)
        if hand_over:
            seat.taken_over = True
        LOGGER.info("match %s seat %d: %s", self.match_id, seat.index, words)
        link = seat.link
        if link.is_open:
            await link.send(bpb.RefereeMessage(error=bpb.BotError(
                kind=kind.proto_value, message=words, request_id=request_id, decision=decision,
                strikes=seat.strikes, taken_over=seat.taken_over)))
        if hand_over:  # also a seat that never connected: its token must not open it later
            link.finish(grpc.StatusCode.FAILED_PRECONDITION,
                        f"seat {seat.index} was taken over by the fallback player: {words}")

    async def _report_violations(self) -> None:
        self._violations = False
        for seat in self.seats:
            while seat.link.violations and not seat.taken_over:
                decision, words = seat.link.violations.pop(0)
                await self._fail(seat, FailureKind.PROTOCOL_ERROR, words, decision=decision)
            seat.link.violations.clear()

    def _publish(self) -> None:
        if self.entry.has_watchers():
            self.entry.publish(self.events.upto(self.state))

    # --- after the last decision --------------------------------------------------------------

    def _result(self, duration_s: float) -> MatchResult:
        state = self.state
        game_places = state.standings()
        scores = list(state.scores)
        kept = [s.index for s in self.seats if not s.taken_over]
        places = []
        for seat in self.seats:
            if seat.taken_over:
                places.append(len(kept) + 1)
            else:
                places.append(1 + sum(1 for i in kept if game_places[i] < game_places[seat.index]))
        seat_results = tuple(
            SeatResult(seat=s.index, name=s.spec.label, place=places[s.index], game_place=game_places[s.index],
                       score=int(scores[s.index]), strikes=s.strikes, taken_over=s.taken_over,
                       decisions=s.decisions, think_ms=round(s.think_s * 1000, 3))
            for s in self.seats
        )
        result = MatchResult(
            match_id=self.match_id, game=self.config.game, rules=self.rules.to_json(), seed=self.config.seed,
            seats=seat_results, failures=tuple(sorted(self.failures, key=lambda f: f.decision)),
            decisions=len(self.records),
            duration_ms=duration_s * 1000, replay={}, decision_clock=tuple(self.clock),
        )
        replay = build_replay(result, state, self.records, self.clocks)
        return dataclasses.replace(result, replay=replay)

    async def _farewell(self, result: MatchResult) -> None:
        encoded = self.events.upto(self.state)
        proto = result_proto(result)
        self.entry.publish(encoded)
        self.entry.finish(proto)
        for seat in self.seats:
            if seat.link.is_open:
                await seat.link.farewell(bpb.RefereeMessage(over=bpb.MatchOver(
                    events=encoded[seat.events_sent:], result=proto)))

    async def _stop_bots(self) -> None:
        cold = [s.handle for s in self.seats if isinstance(s.spec, BotSeat) and s.handle is not None]
        deadline = time.monotonic() + _EXIT_GRACE_S
        while any(h.is_alive() for h in cold) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.gather(*(h.stop() for h in cold), return_exceptions=True)


async def _any_set(events: Sequence[asyncio.Event], timeout_s: float) -> None:
    """Return when one of ``events`` is set, or after ``timeout_s``."""
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _no_connection(spec: SeatSpec, limit_ms: int) -> str:
    """The failure of a seat whose bot never connected; a warm bot (still running since its
    previous match) is told what it missed."""
    words = f"crashed: the bot did not connect within {limit_ms} ms"
    if isinstance(spec, WarmSeat):
        words += (" (a warm bot: after each match it must read the next token from TALON_TOKEN_FILE, "
                  "which changes, and connect with it)")
    return words


def _silent_exit_hint(spec: SeatSpec) -> str:
    """What to check when a bot exited without a word before connecting."""
    if isinstance(spec, BotSeat) and spec.bot.entry != PYTHON_ENTRY:
        return f" (no output: does {spec.bot.entry} read TALON_ADDRESS and connect?)"
    return " (no output: does bot.py call run(YourBot)?)"


def _logs(handle: BotHandle | None) -> str:
    if handle is None:
        return ""
    try:
        return printable(handle.logs())  # shown on an operator's terminal: no escape sequences
    except Exception:  # noqa: BLE001 - logs are a courtesy in an error message
        return ""


def _output(handle: BotHandle | None) -> str:
    return _tail(_logs(handle))


def _tail(text: str, limit: int = 400) -> str:
    """The end of a bot's output for the operator: whole lines (a traceback's last line says
    what happened), joined on one line, at most about ``limit`` characters."""
    lines = [line.strip() for line in text.splitlines() if line.strip().strip("^~")]  # no caret lines
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if kept and size + len(line) > limit:
            break
        kept.append(line if len(line) <= limit else "..." + line[-limit:])
        size += len(line) + 3
    return " | ".join(reversed(kept))


def _json(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def result_proto(result: MatchResult) -> bpb.MatchResult:
    """The wire form of a result."""
    rules = result.rules
    return bpb.MatchResult(
        match_id=result.match_id,
        rules=gpb.RuleSet(game=result.game, preset=str(rules.get("preset", "")),
                          overrides_json=_json(rules.get("overrides", {}))),
        seed=result.seed,
        seats=[bpb.SeatResult(seat=s.seat, name=s.name, place=s.place, game_place=s.game_place, score=s.score,
                              strikes=s.strikes, taken_over=s.taken_over) for s in result.seats],
        failures=[bpb.Failure(seat=f.seat, kind=f.kind.proto_value, decision=f.decision, message=f.message)
                  for f in result.failures],
        decisions=result.decisions,
        duration_ms=int(result.duration_ms),
    )

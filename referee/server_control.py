"""The control API (``talon.v1.MatchControl``): start matches, follow them, fetch results.

Served only on the control listener of :class:`referee.server.RefereeService`. A match started
here has :class:`~referee.match.ExternalSeat` seats: the caller gets one token per seat and
runs the bots itself (for example with the SDK), pointing them at ``bot_target``.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, NoReturn

import grpc

from referee.games import RulesError, make_rules
from referee.match import ExternalSeat, run_match
from referee.match_types import Clocks, ConfigError, MatchConfig, MatchResult
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import control_pb2 as cpb

if TYPE_CHECKING:
    from referee.server import RefereeService

Context = grpc.aio.ServicerContext[Any, Any]


async def _refuse(context: Context, code: grpc.StatusCode, words: str) -> NoReturn:
    await context.abort(code, words)
    raise RuntimeError("unreachable: context.abort returned")


def _override_value(text: str) -> Any:
    """Overrides arrive as text; numbers and JSON literals are read as such, the rest is text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class _Control:
    def __init__(self, service: RefereeService) -> None:
        self.service = service
        self.tasks: set[asyncio.Task[MatchResult]] = set()

    def _config(self, request: cpb.StartMatchRequest) -> MatchConfig:
        overrides = {k: _override_value(v) for k, v in request.overrides.items()}
        rules = make_rules(request.game, request.preset, overrides)
        rules.check_players(len(request.seat_names))
        c = request.clocks
        clocks = Clocks(
            decision_ms=c.decision_ms or Clocks.decision_ms,
            bank_ms=c.bank_ms or Clocks.bank_ms,
            max_strikes=c.max_strikes or Clocks.max_strikes,
            connect_timeout_ms=request.connect_timeout_ms or Clocks.connect_timeout_ms,
        )
        return MatchConfig(request.game, request.preset, request.seed, overrides, clocks)

    async def start_match(self, request: cpb.StartMatchRequest, context: Context) -> cpb.StartMatchResponse:
        if not self.service.accepting:
            await _refuse(context, grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        try:
            config = self._config(request)
        except (RulesError, ConfigError) as err:
            await _refuse(context, grpc.StatusCode.INVALID_ARGUMENT, str(err))
        loop = asyncio.get_running_loop()
        tokens: asyncio.Future[tuple[str, list[str]]] = loop.create_future()

        def on_tokens(match_id: str, seat_tokens: list[str]) -> None:
            if not tokens.done():
                tokens.set_result((match_id, seat_tokens))

        seats = [ExternalSeat(name or f"seat{i}") for i, name in enumerate(request.seat_names)]
        task = asyncio.ensure_future(run_match(config, seats, service=self.service, on_tokens=on_tokens))
        self.tasks.add(task)
        task.add_done_callback(self._done)
        either: set[asyncio.Future[Any]] = {tokens, task}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if not tokens.done():
            failure = task.exception()
            await _refuse(context, grpc.StatusCode.INVALID_ARGUMENT, f"the match could not start: {failure}")
        match_id, seat_tokens = tokens.result()
        return cpb.StartMatchResponse(
            match_id=match_id, bot_target=self.service.bot_target,
            seats=[cpb.SeatTicket(seat=i, token=t) for i, t in enumerate(seat_tokens)])

    def _done(self, task: asyncio.Task[MatchResult]) -> None:
        self.tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a failed match is reported through GetResult/logs

    async def watch_match(self, request: cpb.WatchMatchRequest, context: Context) -> Any:
        entry = self.service.entry(request.match_id)
        if entry is None:
            result = self.service.results.get(request.match_id)
            if result is None:
                await _refuse(context, grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            await context.write(cpb.MatchUpdate(result=result))
            return
        entry.watchers += 1
        sent = 0
        try:
            while True:
                changed = entry.changed
                batch = list(entry.source()[sent:])  # the list grows while we write
                for event in batch:
                    await context.write(cpb.MatchUpdate(event=event))
                sent += len(batch)
                if entry.result is not None:
                    await context.write(cpb.MatchUpdate(result=entry.result))
                    return
                await changed.wait()
        finally:
            entry.watchers -= 1

    async def get_result(self, request: cpb.GetResultRequest, context: Context) -> bpb.MatchResult:
        while True:
            result = self.service.results.get(request.match_id)
            entry = self.service.entry(request.match_id)
            if result is None and entry is not None and entry.result is not None:
                result = entry.result
            if result is not None:
                return result
            if entry is None:
                await _refuse(context, grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            if not request.wait:
                await _refuse(context, grpc.StatusCode.FAILED_PRECONDITION,
                              f"match {request.match_id!r} is still running; set wait to block until it ends")
            await entry.changed.wait()


def control_handlers(service: RefereeService) -> grpc.GenericRpcHandler:
    """The MatchControl handlers bound to ``service``."""
    control = _Control(service)
    service.control_tasks = control.tasks
    return grpc.method_handlers_generic_handler("talon.v1.MatchControl", {
        "StartMatch": grpc.unary_unary_rpc_method_handler(
            control.start_match, request_deserializer=cpb.StartMatchRequest.FromString,
            response_serializer=cpb.StartMatchResponse.SerializeToString),
        "WatchMatch": grpc.unary_stream_rpc_method_handler(
            control.watch_match, request_deserializer=cpb.WatchMatchRequest.FromString,
            response_serializer=cpb.MatchUpdate.SerializeToString),
        "GetResult": grpc.unary_unary_rpc_method_handler(
            control.get_result, request_deserializer=cpb.GetResultRequest.FromString,
            response_serializer=bpb.MatchResult.SerializeToString),
    })

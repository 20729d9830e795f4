"""Tokens, refusals and protocol errors, from hand-written clients on the real socket.

A token works for one seat of one match, once; everything else is refused with a status code
that says why (UNAUTHENTICATED, ALREADY_EXISTS, FAILED_PRECONDITION, INVALID_ARGUMENT,
RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED) and words; an out-of-turn answer is refused with a
protocol error in words and the match goes on. The server keeps serving afterwards.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.match import ExternalSeat, run_match
from referee.match_types import Clocks, FailureKind, MatchConfig
from referee.server import RefereeService, ServiceConfig
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb

PLAY = "/talon.v1.BotSession/Play"


def _call(channel: grpc.aio.Channel) -> Any:
    return channel.stream_stream(PLAY, request_serializer=bpb.BotMessage.SerializeToString,
                                 response_deserializer=bpb.RefereeMessage.FromString)()


async def _refusal(target: str, first: bpb.BotMessage) -> tuple[grpc.StatusCode, str]:
    """Open a stream, send ``first``, return the status the referee ends it with."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = _call(channel)
        await call.write(first)
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as err:
            return err.code(), err.details() or ""
        return await call.code(), await call.details()


def _hello(token: str) -> bpb.BotMessage:
    return bpb.BotMessage(hello=bpb.Hello(token=token, bot_name="test"))


class RawBot:
    """A hand-written client that plays legal actions; optionally answers out of turn once."""

    def __init__(self, target: str, token: str, out_of_turn: bool = False) -> None:
        self.target, self.token, self.out_of_turn = target, token, out_of_turn
        self.received: list[bpb.RefereeMessage] = []
        self.connected = asyncio.Event()

    async def play(self) -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(self.target) as channel:
            call = _call(channel)
            await call.write(_hello(self.token))
            async for message in call:
                self.received.append(message)
                which = message.WhichOneof("message")
                if which == "welcome":
                    self.connected.set()
                    if self.out_of_turn:  # request ids start at 1: 0 answers nothing
                        await call.write(bpb.BotMessage(answer=bpb.Answer(
                            request_id=0, action=gpb.Action(crazy_eights=0))))
                elif which == "request":
                    request = message.request
                    action = gpb.Action(crazy_eights=request.legal.crazy_eights[-1])
                    await call.write(bpb.BotMessage(answer=bpb.Answer(request_id=request.request_id, action=action)))
            return await call.code()

    def errors(self) -> list[bpb.BotError]:
        return [m.error for m in self.received if m.WhichOneof("message") == "error"]


async def _start(service: RefereeService, seed: int) -> tuple[asyncio.Task[Any], list[str]]:
    tokens: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()
    config = MatchConfig("crazy-eights", "classic", seed, clocks=Clocks(connect_timeout_ms=20_000))
    task = asyncio.ensure_future(run_match(config, [ExternalSeat("a"), ExternalSeat("b")], service=service,
                                           on_tokens=lambda _, t: tokens.set_result(t)))
    return task, await tokens


def test_bad_tokens_are_refused_with_reasons(arena):
    async def scenario() -> None:
        target = arena.service.bot_target
        task, tokens = await _start(arena.service, 1)
        code, words = await _refusal(target, _hello("not-a-token"))
        assert code is grpc.StatusCode.UNAUTHENTICATED and "unknown token" in words
        code, words = await _refusal(target, bpb.BotMessage(answer=bpb.Answer(request_id=1)))
        assert code is grpc.StatusCode.INVALID_ARGUMENT and "first message must be a Hello" in words

        first, second = RawBot(target, tokens[0]), RawBot(target, tokens[1])
        playing = [asyncio.ensure_future(first.play())]
        await first.connected.wait()
        code, words = await _refusal(target, _hello(tokens[0]))  # the same token again
        assert code is grpc.StatusCode.ALREADY_EXISTS and "already connected" in words
        playing.append(asyncio.ensure_future(second.play()))
        await second.connected.wait()
        code, words = await _refusal(target, _hello(tokens[1]))  # another seat's token, in use
        assert code is grpc.StatusCode.ALREADY_EXISTS and "seat 1" in words
        assert await asyncio.gather(*playing) == [grpc.StatusCode.OK] * 2
        result = await task
        assert not result.failures
        code, words = await _refusal(target, _hello(tokens[0]))  # a token of a finished match
        assert code is grpc.StatusCode.FAILED_PRECONDITION and "match is over" in words

    arena.run(scenario())


def test_an_out_of_turn_answer_is_refused_in_words_and_play_goes_on(arena):
    async def scenario() -> None:
        target = arena.service.bot_target
        task, tokens = await _start(arena.service, 2)
        bots = [RawBot(target, tokens[0], out_of_turn=True), RawBot(target, tokens[1], out_of_turn=True)]
        await asyncio.gather(*(b.play() for b in bots))
        result = await task
        assert [f.kind for f in result.failures] == [FailureKind.PROTOCOL_ERROR] * 2
        words = [b.errors()[0].message for b in bots]
        assert all(w.startswith("protocol: ") for w in words)
        assert any("out of turn: no decision of this seat is pending" in w for w in words), words
        assert all(b.errors()[0].kind == bpb.FAILURE_KIND_PROTOCOL_ERROR for b in bots)
        assert all(s.strikes == 1 and not s.taken_over and s.decisions > 0 for s in result.seats)

    arena.run(scenario())


def test_an_oversized_message_is_refused(arena):
    code, words = arena.run(_refusal(arena.service.bot_target, _hello("x" * 100_000)))
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in words


def test_a_silent_client_is_cut_off(tmp_path_factory):
    async def scenario() -> None:
        sock = tmp_path_factory.mktemp("s", numbered=True) / "r.sock"
        if len(str(sock)) > 100:
            pytest.skip("temporary path too long for a Unix socket")
        async with RefereeService(ServiceConfig(bot_unix=sock, hello_timeout_s=0.2)) as service:
            async with grpc.aio.insecure_channel(service.bot_target) as channel:
                call = _call(channel)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call.read()
                assert caught.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
                assert "no Hello within" in (caught.value.details() or "")

    asyncio.run(scenario())


def test_the_server_is_healthy_and_still_plays(arena):
    async def health() -> int:
        async with grpc.aio.insecure_channel(arena.service.bot_target) as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="talon.v1.BotSession"), timeout=5)
            return reply.status

    assert arena.run(health()) == health_pb2.HealthCheckResponse.SERVING
    result = arena.play("crazy-eights", "house", 9, ["random", "greedy"])
    assert not result.failures and result.decisions > 0

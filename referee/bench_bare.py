"""The bare side of the referee benchmark: a gRPC stream ping-pong with no referee in it.

Server side (:class:`BareServer`, in the benchmark's process): per stream, write a ready-made
``RefereeMessage`` (a real Crazy Eights request, pre-encoded) and read the ``BotMessage``
answer, timing each round trip. Client side (``python -m referee.bench_bare TARGET``, a child
process like a bot): answer every request with its first legal action. Same transport, same
grpc.aio stream, same message types as the referee: only the referee's work is missing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb

METHOD = "/talon.bench.Bare/PingPong"


@dataclasses.dataclass
class _Job:
    rounds: int
    """Round trips to make, or 0 to go on until ``until``."""
    done: asyncio.Future[list[float]]
    until: float = 0.0
    """``time.perf_counter()`` at which to stop when ``rounds`` is 0."""
    turn: asyncio.Event | None = None
    """Alternating pairs: wait for this before each round trip..."""
    hand_over: asyncio.Event | None = None
    """...and set this after it (the partner stream's turn)."""


class BareServer:
    """A grpc.aio server whose streams run ping-pong jobs handed to them."""

    def __init__(self, path: Path, payload: bytes) -> None:
        self.path = path
        self.payload = payload
        self.server: grpc.aio.Server | None = None
        self.streams: list[asyncio.Queue[_Job]] = []
        self.connected = asyncio.Event()

    async def start(self) -> str:
        handler = grpc.method_handlers_generic_handler("talon.bench.Bare", {
            "PingPong": grpc.stream_stream_rpc_method_handler(
                self._stream, request_deserializer=bpb.BotMessage.FromString, response_serializer=lambda b: b)})
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers((handler,))
        target = f"unix://{self.path}"
        self.server.add_insecure_port(target)
        await self.server.start()
        return target

    async def _stream(self, request_iterator: Any, context: Any) -> None:
        await context.read()  # the client's hello
        jobs: asyncio.Queue[_Job] = asyncio.Queue()
        self.streams.append(jobs)
        self.connected.set()
        payload, clock = self.payload, time.perf_counter
        while True:
            job = await jobs.get()
            ends: list[float] = []
            turn, hand_over = job.turn, job.hand_over
            while (len(ends) < job.rounds) if job.rounds else (not ends or ends[-1] < job.until):
                if turn is not None:
                    await turn.wait()
                    turn.clear()
                await context.write(payload)
                await context.read()
                ends.append(clock())
                if hand_over is not None:
                    hand_over.set()
            job.done.set_result(ends)

    async def run(self, streams: int, rounds: int, seconds: float = 0.0) -> list[list[float]]:
        """``rounds`` round trips (or ``seconds`` of them) on ``streams`` streams at once; the
        end time of each round trip, per stream."""
        loop = asyncio.get_running_loop()
        until = time.perf_counter() + seconds
        jobs = [_Job(rounds, loop.create_future(), until) for _ in range(streams)]
        for queue, job in zip(self.streams[:streams], jobs):
            queue.put_nowait(job)
        return list(await asyncio.gather(*(j.done for j in jobs)))

    async def alternate(self, rounds: int, pairs: int = 1, seconds: float = 0.0) -> list[list[float]]:
        """Round trips taking turns between the two streams of each of ``pairs`` pairs (as the
        two seats of a match do), pairs at once: ``rounds`` per pair, or ``seconds`` of them
        when ``rounds`` is 0. The end times of each pair's round trips."""
        loop = asyncio.get_running_loop()
        until = time.perf_counter() + seconds
        jobs: list[_Job] = []
        for _ in range(pairs):
            first, second = asyncio.Event(), asyncio.Event()
            first.set()
            jobs += [_Job(rounds // 2, loop.create_future(), until, first, second),
                     _Job(rounds // 2, loop.create_future(), until, second, first)]
        for queue, job in zip(self.streams[:2 * pairs], jobs):
            queue.put_nowait(job)
        ends = await asyncio.gather(*(j.done for j in jobs))
        return [sorted(a + b) for a, b in zip(ends[::2], ends[1::2])]

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(0.5)


async def _client(target: str) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.stream_stream(METHOD, request_serializer=bpb.BotMessage.SerializeToString,
                                     response_deserializer=bpb.RefereeMessage.FromString)()
        await call.write(bpb.BotMessage(hello=bpb.Hello(token="bare")))
        try:
            async for message in call:
                request = message.request
                await call.write(bpb.BotMessage(answer=bpb.Answer(
                    request_id=request.request_id, action=gpb.Action(crazy_eights=request.legal.crazy_eights[0]))))
        except grpc.aio.AioRpcError:
            return


if __name__ == "__main__":
    asyncio.run(_client(sys.argv[1]))

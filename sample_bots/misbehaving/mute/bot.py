"""Misbehaving: connects, reads every request, never answers (every decision times out).

It keeps reading so that gRPC flow control never stalls the referee's writes: the benchmark
uses it to measure how punctually the referee takes a silent bot's decisions.
"""

import asyncio
import os

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2


async def main():
    async with grpc.aio.insecure_channel(os.environ["TALON_ADDRESS"]) as channel:
        call = channel.stream_stream("/talon.v1.BotSession/Play",
                                     request_serializer=bot_pb2.BotMessage.SerializeToString,
                                     response_deserializer=bot_pb2.RefereeMessage.FromString)()
        await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(token=os.environ["TALON_TOKEN"], bot_name="mute")))
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as err:
            print(f"mute bot: the referee ended the stream: {err.code().name}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())

"""Misbehaving: answers its third request with bytes that are not a protobuf message.

It speaks the wire protocol by hand (not through the SDK's Bot) to be able to send raw bytes.
"""

import asyncio
import os

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2, game_pb2

GARBAGE = b"\xff\xfe not a protobuf message \x00\x01\x02" * 4


async def main():
    async with grpc.aio.insecure_channel(os.environ["TALON_ADDRESS"]) as channel:
        call = channel.stream_stream("/talon.v1.BotSession/Play", request_serializer=lambda b: b,
                                     response_deserializer=bot_pb2.RefereeMessage.FromString)()
        hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=os.environ["TALON_TOKEN"], bot_name="garbage"))
        await call.write(hello.SerializeToString())
        count = 0
        try:
            async for message in call:
                if message.WhichOneof("message") != "request":
                    continue
                count += 1
                request = message.request
                if count > 2:
                    await call.write(GARBAGE)
                    continue
                action = game_pb2.Action(crazy_eights=request.legal.crazy_eights[0]) if request.legal.crazy_eights \
                    else game_pb2.Action(crazy_rummy=request.legal.crazy_rummy[0])
                answer = bot_pb2.BotMessage(answer=bot_pb2.Answer(request_id=request.request_id, action=action))
                await call.write(answer.SerializeToString())
        except grpc.aio.AioRpcError as err:
            print(f"garbage bot: the referee ended the stream: {err.code().name}: {err.details()}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())

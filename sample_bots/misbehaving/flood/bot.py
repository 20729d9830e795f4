"""Misbehaving: from its third request on, floods the referee with answers to no request."""

import asyncio
import os

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2, game_pb2

FLOOD = 500


async def main():
    async with grpc.aio.insecure_channel(os.environ["TALON_ADDRESS"]) as channel:
        call = channel.stream_stream("/talon.v1.BotSession/Play",
                                     request_serializer=bot_pb2.BotMessage.SerializeToString,
                                     response_deserializer=bot_pb2.RefereeMessage.FromString)()
        await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(token=os.environ["TALON_TOKEN"], bot_name="flood")))
        count = 0
        try:
            async for message in call:
                if message.WhichOneof("message") == "error":
                    print(f"flood bot: referee says {message.error.message}", flush=True)
                if message.WhichOneof("message") != "request":
                    continue
                count += 1
                request = message.request
                action = game_pb2.Action(crazy_eights=request.legal.crazy_eights[0]) if request.legal.crazy_eights \
                    else game_pb2.Action(crazy_rummy=request.legal.crazy_rummy[0])
                if count > 2:
                    for bogus in range(FLOOD):
                        await call.write(bot_pb2.BotMessage(answer=bot_pb2.Answer(
                            request_id=10_000_000 + bogus, action=action)))
                await call.write(bot_pb2.BotMessage(answer=bot_pb2.Answer(request_id=request.request_id,
                                                                          action=action)))
        except grpc.aio.AioRpcError as err:
            print(f"flood bot: the referee ended the stream: {err.code().name}: {err.details()}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())

"""Test bot: plays random legal actions and records every message it receives.

It speaks the wire protocol by hand, so what it records is exactly what came over the socket.
The test writes the output directory into ``OUT`` when it copies this bot. Warm bot: plays the
seat whose token is in ``TALON_TOKEN_FILE``, then waits for the next token (``exit`` stops).
"""

import asyncio
import os
import random
import time

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2, game_pb2

OUT = "@OUT@"


async def play(channel, token, rng):
    call = channel.stream_stream("/talon.v1.BotSession/Play",
                                 request_serializer=bot_pb2.BotMessage.SerializeToString,
                                 response_deserializer=lambda raw: raw)()
    await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, bot_name="recorder")))
    raws = []
    async for raw in call:
        raws.append(raw)
        message = bot_pb2.RefereeMessage.FromString(raw)
        if message.WhichOneof("message") != "request":
            continue
        request = message.request
        legal = request.legal
        if legal.crazy_eights:
            action = game_pb2.Action(crazy_eights=rng.choice(list(legal.crazy_eights)))
        else:
            action = game_pb2.Action(crazy_rummy=rng.choice(list(legal.crazy_rummy)))
        await call.write(bot_pb2.BotMessage(answer=bot_pb2.Answer(request_id=request.request_id, action=action)))
    welcome = bot_pb2.RefereeMessage.FromString(raws[0]).welcome
    path = os.path.join(OUT, f"{welcome.match_id}-{welcome.seat}.bin")
    with open(path + ".part", "wb") as f:
        for raw in raws:
            f.write(len(raw).to_bytes(4, "little") + raw)
    os.replace(path + ".part", path)  # the test reads the file as soon as it exists


async def main():
    rng = random.Random(os.getpid())
    token_file = os.environ["TALON_TOKEN_FILE"]
    last = None
    async with grpc.aio.insecure_channel(os.environ["TALON_ADDRESS"]) as channel:
        while True:
            try:
                token = open(token_file).read().strip()
            except FileNotFoundError:
                token = ""
            if token == "exit":
                return
            if not token or token == last:
                time.sleep(0.005)
                continue
            last = token
            await play(channel, token, rng)


if __name__ == "__main__":
    asyncio.run(main())

"""Playing seats at the referee: the session protocol, the environment, warm bots.

:func:`run` is what a bot's ``main`` calls. It reads ``TALON_ADDRESS`` and either
``TALON_TOKEN`` (play that one seat, then return) or ``TALON_TOKEN_FILE`` (a warm bot: play the
seat whose token is in the file, wait for the file to change, play again; the word ``exit``
stops). Inside it runs an asyncio gRPC stream (the fastest Python option measured), but your
``decide`` stays a plain function.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os  # paths through os, not pathlib: importing pathlib is 3 ms of every bot's start
import sys
import time
from typing import Any

import grpc

from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from talon_sdk._proto.talon.v1 import game_pb2 as gpb
from talon_sdk.bot import LOGGER, AsyncBot, Bot
from talon_sdk.views import make_view
from talon_sdk.wire import PLAY_METHOD

CLIENT_VERSION = "talon-sdk/0.1.0"
_PARENT = int(os.environ.get("TALON_PARENT_PID") or os.getppid())
"""The process that started this bot: a warm bot stops when its parent is another. The process
sandbox says which (``TALON_PARENT_PID``): a referee killed before this import would otherwise
leave the bot re-parented already, and the bot would wait for a token for ever."""
_TOKEN_POLL_FIRST_S = 0.001
_TOKEN_POLL_MAX_S = 0.1
_FAILURE_NAMES = {0: "ok", 1: "timeout", 2: "illegal", 3: "protocol_error", 4: "crashed"}


class SessionError(RuntimeError):
    """The referee refused or ended the session; ``code`` is the gRPC status code."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


@dataclasses.dataclass(frozen=True)
class SeatOutcome:
    """How one seat went, from this bot's side."""

    match_id: str
    seat: int
    decisions: int
    errors: int
    result: Any
    """The proto ``MatchResult``, or None if the session ended early."""


def encode_action(action: Any) -> gpb.Action:
    """The wire form of what ``decide`` returned.

    :raises TypeError: for a value that is neither an action nor an action's text.
    """
    return gpb.Action(**action_fields(action))


def action_fields(action: Any) -> dict[str, Any]:
    """:func:`encode_action` as constructor values: an answer built from plain values in one
    constructor call costs half as much as nesting ready-made messages (which copies them).

    :raises TypeError: for a value that is neither an action nor an action's text.
    """
    if isinstance(action, str):
        return {"text": action}
    if isinstance(action, int) and not isinstance(action, bool):
        return {"crazy_eights": action}
    if isinstance(action, tuple) and len(action) == 4 and isinstance(action[0], int):
        kind, cards, meanings, target = action
        return {"crazy_rummy": {"kind": kind, "cards": cards, "meanings": meanings, "target": target}}
    raise TypeError(f"decide() returned {action!r}: return one of view.legal_actions or an action's text "
                    "such as 'draw'")


async def play_seat(channel: grpc.aio.Channel, bot: Bot, token: str) -> SeatOutcome:
    """Play the seat of ``token`` on an open channel until the match ends.

    :raises SessionError: when the referee refuses the token or ends the stream with an error.
    """
    call = channel.stream_stream(PLAY_METHOD, request_serializer=bpb.BotMessage.SerializeToString,
                                 response_deserializer=bpb.RefereeMessage.FromString)()
    await call.write(bpb.BotMessage(hello=bpb.Hello(token=token, bot_name=bot.display_name,
                                                    client_version=CLIENT_VERSION)))
    match_id, seat, decisions, errors, result = "", -1, 0, 0, None
    switches: dict[str, Any] = {}
    awaits = isinstance(bot, AsyncBot)
    try:
        async for message in call:
            which = message.WhichOneof("message")
            if which == "request":
                request = message.request
                action = bot.decide(make_view(request, switches))
                if awaits:
                    action = await action
                await call.write(bpb.BotMessage(answer={"request_id": request.request_id,
                                                        "action": action_fields(action)}))
                decisions += 1
            elif which == "welcome":
                welcome = message.welcome
                match_id, seat = welcome.match_id, welcome.seat
                switches = json.loads(welcome.rules.switches_json or "{}")
                LOGGER.info("playing seat %d of match %s (%s %s, %d seats)", seat, match_id, welcome.rules.game,
                            welcome.rules.preset, welcome.num_players)
                bot.on_start(welcome)
            elif which == "error":
                errors += 1
                err = message.error
                LOGGER.warning("referee: %s (%s, strike %d%s)", err.message, _FAILURE_NAMES.get(err.kind, "?"),
                               err.strikes, ", seat taken over" if err.taken_over else "")
                bot.on_error(err)
            elif which == "over":
                result = message.over.result
                _log_result(result, seat)
                bot.on_end(result)
        await call.done_writing()
    except grpc.aio.AioRpcError as err:
        raise SessionError(err.code(), err.details() or "") from None
    code = await call.code()
    if code != grpc.StatusCode.OK:
        raise SessionError(code, await call.details() or "")
    return SeatOutcome(match_id, seat, decisions, errors, result)


def _log_result(result: Any, seat: int) -> None:
    for entry in result.seats:
        if entry.seat == seat:
            LOGGER.info("match %s over: place %d of %d, score %d, %d strikes", result.match_id, entry.place,
                        len(result.seats), entry.score, entry.strikes)


async def _next_token(path: str | os.PathLike[str], previous: str | None) -> str:
    """Wait until ``path`` holds a token other than ``previous``.

    Polls with a cheap ``stat`` and backs off from 1 ms to 100 ms: the next token usually comes
    within milliseconds of the last match's end, so the first polls are close together (a match
    of a tournament starts about 4 ms sooner than with a 5 ms first poll), and an idle warm bot
    should cost its machine next to nothing.
    Returns ``"exit"`` when the process that started the bot has died (the bot was re-parented),
    so a warm bot never outlives its referee.
    """
    delay, seen = _TOKEN_POLL_FIRST_S, None
    while True:
        if os.getppid() != _PARENT:  # the referee that started us is gone: nobody will write again
            return "exit"
        try:
            stat = os.stat(path)
            mark = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except FileNotFoundError:
            mark = None
        if mark is not None and mark != seen:
            seen = mark
            try:
                with open(path, encoding="utf-8") as file:
                    text = file.read().strip()
            except FileNotFoundError:
                text = ""
            if text and text != previous:
                return text
        await asyncio.sleep(delay)
        delay = min(_TOKEN_POLL_MAX_S, delay * 1.5)


async def serve(bot: Bot, address: str, token: str | None = None,
                token_file: str | os.PathLike[str] | None = None) -> int:
    """Play one seat (``token``) or every seat given through ``token_file``; return an exit code."""
    # No retries: a retried stream would present the same seat token twice (refused).
    options = [("grpc.enable_http_proxy", 0), ("grpc.enable_retries", 0),
               ("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        if token is not None:
            return await _play_logged(channel, bot, token)
        if token_file is None:
            raise ValueError("serve() needs a token or a token file")
        previous: str | None = None
        while True:
            token = await _next_token(token_file, previous)
            if token == "exit":
                LOGGER.info("token file says exit: stopping")
                return 0
            previous = token
            await _play_logged(channel, bot, token)


async def _play_logged(channel: grpc.aio.Channel, bot: Bot, token: str) -> int:
    started = time.perf_counter()
    try:
        outcome = await play_seat(channel, bot, token)
    except SessionError as err:
        LOGGER.error("the referee ended the session: %s", err)
        return 2
    LOGGER.info("session over after %d decisions in %.1f s", outcome.decisions, time.perf_counter() - started)
    return 0


def run(bot: Bot | type[Bot], address: str | None = None, token: str | None = None) -> None:
    """Play as ``bot`` (an instance or a class) with the referee named by the environment.

    Reads ``TALON_ADDRESS`` and ``TALON_TOKEN`` or ``TALON_TOKEN_FILE`` unless given; exits the
    process with status 2 if the referee refused the session, 1 on a missing setting.
    """
    if not logging.getLogger().handlers and not LOGGER.handlers:
        logging.basicConfig(level=os.environ.get("TALON_LOG_LEVEL", "INFO"), stream=sys.stderr,
                            format="%(asctime)s %(name)s %(levelname)s %(message)s")
    instance = bot() if isinstance(bot, type) else bot
    address = address or os.environ.get("TALON_ADDRESS")
    token = token or os.environ.get("TALON_TOKEN")
    token_path = os.environ.get("TALON_TOKEN_FILE")
    if not address or not (token or token_path):
        LOGGER.error("set TALON_ADDRESS and TALON_TOKEN (or TALON_TOKEN_FILE): the referee's sandbox does this "
                     "when it starts your bot")
        sys.exit(1)
    code = asyncio.run(serve(instance, address, token, token_path if token_path and not token else None))
    if code:
        sys.exit(code)

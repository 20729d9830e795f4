"""Warm bots (started once, a token file per match) on a real referee with real processes."""

from __future__ import annotations

from referee.match import WarmSeat, write_token_file
from referee.match_types import Clocks, FailureKind
from referee.sandbox.base import BotSpec, SeatAccess

ONE_MATCH_ONLY = '''\
"""Plays the first token it finds in its token file, then never looks at the file again."""
import os, queue, time
from talon_sdk.wire import answer_until_over, hello, open_stream, read_to_end, seat_token

while not os.path.exists(os.environ["TALON_TOKEN_FILE"]):  # written when its first match starts
    time.sleep(0.005)
outbox = queue.Queue()
outbox.put(hello(seat_token(), "once"))
stream = open_stream(outbox)
answer_until_over(stream, outbox)
outbox.put(None)
print("ended:", read_to_end(stream), flush=True)
time.sleep(60)
'''


def test_a_warm_bot_that_misses_its_next_token_is_told_what_it_missed(arena, tmp_path):
    directory = tmp_path / "once"
    directory.mkdir()
    (directory / "bot.py").write_text(ONE_MATCH_ONLY)
    token_file = tmp_path / "once-token"
    handle = arena.run(arena.sandbox.start(BotSpec.from_dir(directory),
                                           SeatAccess(arena.service.bot_target, token_file=token_file)))
    try:
        seats = [WarmSeat("once", handle, token_file), "random"]
        clocks = Clocks(connect_timeout_ms=500)
        first = arena.play("crazy-eights", "classic", 1, seats, clocks)
        assert first.failures == (), first.failures
        second = arena.play("crazy-eights", "classic", 2, seats, clocks)
        assert [f.kind for f in second.failures] == [FailureKind.CRASHED]
        words = second.failures[0].message
        assert words.startswith("crashed: the bot did not connect within 500 ms (a warm bot: after each match "
                                "it must read the next token from TALON_TOKEN_FILE"), words
        assert second.seats[0].taken_over and handle.is_alive()
    finally:
        write_token_file(token_file, "exit")
        arena.run(handle.stop())

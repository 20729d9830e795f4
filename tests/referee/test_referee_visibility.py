"""Each bot receives only its own cards: checked on the bytes the bots actually received.

Warm recorder bots (real processes, one stream per match, tokens through TALON_TOKEN_FILE) play
many seeded matches of both games and write down every message that reached them. The test
re-simulates each match from its replay and checks, at every request: it was for the seat the
bot plays and that seat was to act; its view is exactly the engine's view for that seat (so the
hand is the seat's own, and no field can hold another's); its legal actions are the engine's;
and across the match each seat received every public event exactly once, in order.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from referee.games import make_rules, new_match
from referee.match import WarmSeat, write_token_file
from referee.match_types import MatchConfig
from referee.match_wire import GameCodec, rummy_action_proto
from referee.sandbox.base import BotSpec, SeatAccess
from talon_sdk._proto.talon.v1 import bot_pb2 as bpb
from tests_referee_helpers import GAMES_UNDER_TEST

from referee_support import TEST_BOTS

MATCHES = [("crazy-eights", preset, players, seed)
           for seed, (preset, players) in enumerate([("classic", 2), ("classic", 3), ("house", 4), ("specials", 3),
                                                     ("countdown", 2), ("pagat", 4), ("french", 3), ("house", 2),
                                                     ("classic", 4), ("specials", 2), ("pagat", 2), ("house", 3)])]
if any(g == "crazy-rummy" for g, _, _ in GAMES_UNDER_TEST):
    MATCHES += [("crazy-rummy", "standard", 3, 100 + s) for s in range(3)] + [("crazy-rummy", "standard", 4, 200)]


def _read_messages(path: Path) -> list[bpb.RefereeMessage]:
    data = path.read_bytes()
    out, pos = [], 0
    while pos < len(data):
        size = int.from_bytes(data[pos:pos + 4], "little")
        out.append(bpb.RefereeMessage.FromString(data[pos + 4:pos + 4 + size]))
        pos += 4 + size
    return out


@pytest.fixture(scope="module")
def recorders(arena, tmp_path_factory):
    out = tmp_path_factory.mktemp("recorded")
    source = TEST_BOTS / "recorder"
    bot_dir = tmp_path_factory.mktemp("recorder") / "recorder"
    shutil.copytree(source, bot_dir)
    text = (bot_dir / "bot.py").read_text().replace("@OUT@", str(out))
    (bot_dir / "bot.py").write_text(text)
    spec = BotSpec.from_dir(bot_dir)
    seats = []
    for i in range(4):
        token_file = arena.dir / f"token{i}"
        handle = arena.run(arena.sandbox.start(spec, SeatAccess(arena.service.bot_target, token_file=token_file)))
        seats.append(WarmSeat(f"recorder{i}", handle, token_file))
    yield out, seats
    for seat in seats:
        write_token_file(seat.token_file, "exit")
    for seat in seats:
        arena.run(seat.handle.stop())


def _wait_for(paths: list[Path], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, f"recorder output missing: {[p for p in paths if not p.exists()]}"
        time.sleep(0.02)


@pytest.mark.parametrize("game,preset,players,seed", MATCHES)
def test_each_bot_receives_only_its_own_view(arena, recorders, game, preset, players, seed):
    from referee.match import run_match

    out, warm = recorders
    config = MatchConfig(game, preset, seed)
    result = arena.run(run_match(config, warm[:players], service=arena.service))
    assert not result.failures, result.failures
    files = [out / f"{result.match_id}-{seat}.bin" for seat in range(players)]
    _wait_for(files)
    received = [_read_messages(f) for f in files]

    requests: dict[int, tuple[int, bpb.DecisionRequest]] = {}
    for seat, messages in enumerate(received):
        welcome = messages[0].welcome
        assert messages[0].WhichOneof("message") == "welcome" and welcome.seat == seat
        assert welcome.match_id == result.match_id and welcome.num_players == players
        assert messages[-1].WhichOneof("message") == "over"
        events = []
        for message in messages[1:]:
            kind = message.WhichOneof("message")
            assert kind in ("request", "over"), kind  # no error: these bots play legally
            if kind == "request":
                assert message.request.decision not in requests
                requests[message.request.decision] = (seat, message.request)
                events.extend(message.request.events)
            else:
                events.extend(message.over.events)
        assert [e.index for e in events] == list(range(len(events)))

    state = new_match(game, make_rules(game, preset), players, seed)
    codec = GameCodec(game)
    for decision, record in enumerate(result.replay["actions"]):
        seat, request = requests.pop(decision)
        assert seat == record["seat"] == state.current_player
        view = getattr(request, codec.view_field)
        assert view == codec.views.encode(state.view(seat))
        assert sorted(view.hand) == sorted(state.view(seat)["hand"])
        legal = state.legal_actions()
        if game == "crazy-eights":
            assert list(request.legal.crazy_eights) == list(legal)
        else:
            assert list(request.legal.crazy_rummy) == [rummy_action_proto(a) for a in legal]
        state.apply(state.action_from_json(record["action"]))
    assert not requests, "a request for no decision of the match"
    for messages in received:  # every public event reached every seat exactly once
        count = sum(len(m.request.events) for m in messages if m.WhichOneof("message") == "request")
        count += sum(len(m.over.events) for m in messages if m.WhichOneof("message") == "over")
        assert count == len(state.events)

"""`talon play` and `talon replay verify`, run as a user would (real referee, real bots)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from referee.cli import main

from referee_support import SAMPLES


def _bot(tmp_path, name, source):
    """A bot directory ``name`` whose bot.py is ``source``."""
    directory = tmp_path / name
    directory.mkdir()
    (directory / "bot.py").write_text(source)
    return directory


def _play(bots, seed, *options):
    """``talon play`` of Crazy Eights ``pagat`` with these bot directories, as processes."""
    seats = [arg for bot in bots for arg in ("--bot", str(bot))]
    return CliRunner().invoke(main, ["play", "--game", "crazy-eights", "--rules", "pagat", *seats, "--seed", str(seed),
                                     "--sandbox", "process", *options])


def test_play_writes_a_replay_that_verifies_and_a_tampered_one_that_does_not(tmp_path):
    runner = CliRunner()
    replay = tmp_path / "out" / "new" / "match.json"  # a folder that does not exist yet is made
    args = ["play", "--game", "crazy-eights", "--rules", "house", "--bot", str(SAMPLES / "greedy"),
            "--bot", str(SAMPLES / "random"), "--bot", str(SAMPLES / "random"), "--seed", "12",
            "--replay", str(replay), "--json", "--sandbox", "process"]
    played = runner.invoke(main, args)
    assert played.exit_code == 0, played.output
    summary = json.loads(played.stdout)
    assert [s["name"] for s in summary["seats"]] == ["greedy", "random", "random"]
    assert sorted(s["place"] for s in summary["seats"])[0] == 1

    data = json.loads(replay.read_text())
    assert data["seed"] == 12 and data["rules"]["preset"] == "house" and len(data["seats"]) == 3
    assert all({"seat", "action", "text", "by", "ms"} <= set(a) for a in data["actions"])
    assert data["events"] and data["result"]["seats"] == summary["seats"]
    verified = runner.invoke(main, ["replay", "verify", str(replay)])
    assert verified.exit_code == 0 and verified.output.startswith("ok: ")

    data["result"]["seats"][0]["score"] += 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    refused = runner.invoke(main, ["replay", "verify", str(tampered)])
    assert refused.exit_code == 1 and "seat 0: recorded score" in refused.output


def test_play_prints_standings_and_names_bad_input():
    runner = CliRunner()
    ok = runner.invoke(main, ["play", "--game", "crazy-eights", "--rules", "pagat", "--bot", str(SAMPLES / "random"),
                              "--bot", str(SAMPLES / "greedy"), "--seed", "3", "--sandbox", "process"])
    assert ok.exit_code == 0 and "place  seat  bot" in ok.output
    bad = runner.invoke(main, ["play", "--game", "crazy-eights", "--rules", "nope", "--bot", str(SAMPLES / "random"),
                               "--bot", str(SAMPLES / "random"), "--seed", "1", "--sandbox", "process"])
    assert bad.exit_code != 0 and "unknown preset 'nope'" in bad.output and "classic" in bad.output
    missing = runner.invoke(main, ["play", "--game", "crazy-eights", "--rules", "classic", "--bot", "/nonexistent",
                                   "--bot", str(SAMPLES / "random"), "--seed", "1", "--sandbox", "process"])
    assert missing.exit_code != 0


def test_a_replay_path_that_cannot_be_written_is_refused_before_the_match(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file, not a folder")
    out = _play([SAMPLES / "random", SAMPLES / "greedy"], 3, "--replay", str(blocked / "m.json"))
    assert out.exit_code == 1 and "place  seat  bot" not in out.output  # refused before playing
    assert f"--replay {blocked / 'm.json'}: cannot create its folder" in out.output


def test_bot_logs_keeps_what_each_bot_printed(tmp_path):
    source = (SAMPLES / "random" / "bot.py").read_text()
    marker = "    def decide(self, view):\n"
    assert marker in source
    loud = _bot(tmp_path, "loud", source.replace(marker, marker + "        print('deciding', view.decision.decision)\n"))
    logs = tmp_path / "logs" / "new"
    out = _play([loud, SAMPLES / "greedy"], 3, "--bot-logs", str(logs))
    assert out.exit_code == 0, out.output
    files = {p.name.split("-", 1)[1]: p.read_text() for p in logs.iterdir()}
    assert sorted(files) == ["greedy.log", "loud.log"]
    assert "playing seat 0 of match" in files["loud.log"] and "deciding 1" in files["loud.log"]
    assert "playing seat 1 of match" in files["greedy.log"] and "deciding" not in files["greedy.log"]


def test_a_bots_escape_sequences_never_reach_the_terminal(tmp_path):
    """A crashing bot's output is quoted in its failure: control characters are shown, not run
    (an OSC 52 sequence would write the operator's clipboard, a CR could forge a line)."""
    sly = _bot(tmp_path, "sly", "import sys\n"
                                "sys.stderr.write('\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\r    1     0  sly   999  0\\n')\n"
                                "raise SystemExit('gone')\n")
    out = _play([sly, SAMPLES / "random"], 3)
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.output and "\x07" not in out.output and "\r" not in out.output
    assert "\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x0d" in out.output


def test_a_malformed_replay_is_named_not_a_traceback(tmp_path):
    replay = tmp_path / "m.json"
    played = _play([SAMPLES / "random", SAMPLES / "greedy"], 3, "--replay", str(replay))
    assert played.exit_code == 0, played.output
    good = json.loads(replay.read_text())
    for change, words in (
        (lambda d: d.__setitem__("actions", 5), "the replay['actions'] is int, not list"),
        (lambda d: d["actions"][3].pop("action"), "actions[3] lacks 'action'"),
        (lambda d: d["result"].pop("seats"), "result lacks its 'seats' list"),
        (lambda d: d["result"]["seats"][1].__setitem__("score", "7"), "result.seats[1]['score'] is '7', not an integer"),
    ):
        data = json.loads(json.dumps(good))
        change(data)
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(data))
        out = CliRunner().invoke(main, ["replay", "verify", str(bad)])
        assert out.exit_code == 1 and f"is malformed: {words}" in out.output, out.output
        assert out.exception is None or isinstance(out.exception, SystemExit)


def test_connect_ms_sets_how_long_a_bot_may_take_to_connect(tmp_path):
    slow = _bot(tmp_path, "slow", "import time\ntime.sleep(1.0)\n" + (SAMPLES / "random" / "bot.py").read_text())
    short = _play([slow, SAMPLES / "random"], 1, "--connect-ms", "200")
    assert short.exit_code == 0 and "crashed: the bot did not connect within 200 ms" in short.output
    enough = _play([slow, SAMPLES / "random"], 1, "--connect-ms", "20000")
    assert enough.exit_code == 0 and "failure:" not in enough.output


STRAY = '''\
"""Answers its third request twice over: first with an id nobody asked for, then rightly."""
import queue
from talon_sdk._proto.talon.v1 import bot_pb2
from talon_sdk.wire import answer, first_legal, hello, open_stream, read_to_end, seat_token

outbox = queue.Queue()
outbox.put(hello(seat_token(), "stray"))
stream, seen = open_stream(outbox), 0
for message in stream:
    if message.WhichOneof("message") == "request":
        request, seen = message.request, seen + 1
        if seen == 3:
            print("stray during decision", request.decision, flush=True)
            outbox.put(answer(request.request_id + 1000, first_legal(request)))
        outbox.put(answer(request.request_id, first_legal(request)))
    elif message.WhichOneof("message") == "over":
        break
outbox.put(None)
'''


def test_a_violation_is_recorded_at_the_decision_during_which_it_came(tmp_path):
    logs = tmp_path / "logs"
    out = _play([_bot(tmp_path, "stray", STRAY), SAMPLES / "random"], 4, "--bot-logs", str(logs), "--json")
    assert out.exit_code == 0, out.output
    failures = json.loads(out.stdout)["failures"]
    said = next(line for p in logs.iterdir() for line in p.read_text().splitlines() if line.startswith("stray during"))
    assert [(f["kind"], f["decision"]) for f in failures] == [("protocol_error", int(said.split()[-1]))], failures


HALF_CLOSE = '''\
"""Says Hello, closes its sending side at once, and reads on to the end."""
import queue
from talon_sdk.wire import hello, open_stream, read_to_end, seat_token

outbox = queue.Queue()
outbox.put(hello(seat_token(), "half"))
outbox.put(None)  # done writing
print("ended:", read_to_end(open_stream(outbox)), flush=True)
'''


def test_a_bot_that_closes_its_side_is_told_why_its_stream_ended(tmp_path):
    logs = tmp_path / "logs"
    out = _play([_bot(tmp_path, "half", HALF_CLOSE), SAMPLES / "random"], 2, "--bot-logs", str(logs), "--json")
    assert out.exit_code == 0, out.output
    seats = json.loads(out.stdout)["seats"]
    assert seats[0]["taken_over"] and seats[0]["place"] == 2
    said = "".join(p.read_text() for p in logs.iterdir() if "half" in p.name)
    assert "ended: FAILED_PRECONDITION: the stream ended before the match did" in said, said
    assert "the fallback player takes your seat" in said


CLOSE_ON_OVER = '''\
"""Plays the first legal action and closes its sending side the moment it reads MatchOver."""
import queue
from talon_sdk.wire import answer_until_over, hello, open_stream, read_to_end, seat_token

outbox = queue.Queue()
outbox.put(hello(seat_token(), "prompt"))
stream = open_stream(outbox)
answer_until_over(stream, outbox)
outbox.put(None)  # done writing, before the referee has ended the stream
print("ended:", read_to_end(stream), flush=True)
'''


def test_a_bot_that_closes_its_side_on_match_over_ends_with_ok(tmp_path):
    bot = _bot(tmp_path, "prompt", CLOSE_ON_OVER)
    for seed in range(5):  # the close races the referee's own end of the stream: try it often
        logs = tmp_path / f"logs{seed}"
        out = _play([bot, SAMPLES / "random"], seed, "--bot-logs", str(logs), "--json")
        assert out.exit_code == 0, out.output
        result = json.loads(out.stdout)
        assert result["failures"] == [] and not result["seats"][0]["taken_over"], result
        said = "".join(p.read_text() for p in logs.iterdir() if "prompt" in p.name)
        assert "ended: OK" in said, said

"""What ``talon tournament`` shows while it plays: the live display on a terminal (a real pty and
real bots), and the plain lines a log gets."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from referee.tournament.config import TournamentConfig
from referee.tournament.progress import PLAIN_STEPS, LiveView, PlainLines
from referee.tournament.ratings import LiveRatings
from referee.tournament.results import MatchResult
from referee.tournament.runner import Progress
from referee.tournament.schedule import Schedule

from known_bots import BOTS

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def played(groups: int) -> list[list[MatchResult]]:
    """Heads-up results of a 2-bot field where ``ace`` always wins, group by group."""
    config = TournamentConfig.make(game="crazy-eights", rules="classic", table_size=2, bots=["ace", "bee"], seed=1,
                                   deal_groups=groups)
    return [[MatchResult.for_match(m, [1 if b == "ace" else 2 for b in m.seats], [0.0, 0.0]) for m in g.matches]
            for g in Schedule.from_config(config).groups()]


def test_plain_lines_stay_few_and_say_where_the_run_is() -> None:
    stream, live = io.StringIO(), LiveRatings()
    view = PlainLines(stream)
    groups = played(100)
    done = 0
    for number, group in enumerate(groups, 1):
        for result in group:
            done += 1
            live.update(result)
            view.match(Progress(number - 1, 100, done, live, done, 200))
        view.group(Progress(number, 100, done, live, done, 200))
    lines = stream.getvalue().splitlines()
    assert len(lines) == PLAIN_STEPS + 1
    assert lines[0].startswith("groups 1/100 (1%), games 2/200, ")
    assert lines[-1].startswith("groups 100/100 (100%), games 200/200, ") and "ETA 0:00" in lines[-1]
    assert re.search(r"; provisional: ace [0-9.]+, bee [0-9.]+$", lines[-1])


def test_live_view_draws_the_bar_and_the_provisional_table() -> None:
    out = io.StringIO()
    live = LiveRatings()
    with LiveView(Console(file=out, force_terminal=True, width=100), 0, 6) as view:
        done = 0
        for number, group in enumerate(played(3), 1):
            for result in group:
                done += 1
                live.update(result)
                view.match(Progress(number - 1, 3, done, live, done, 6))
            view.group(Progress(number, 3, done, live, done, 6))
            view.live.refresh()
    text = ANSI.sub("", out.getvalue())
    assert "6/6" in text and "games/s" in text and "ETA" in text
    assert "Provisional leaderboard after 3/3 deal groups" in text
    assert re.search(r"│ 1 │ ace +│", text) and re.search(r"│ 2 │ bee +│", text)


def test_a_terminal_gets_the_live_display(tmp_path: Path) -> None:
    """The real command on a pseudo-terminal, with real bots: the bar, the rate and the
    provisional table are drawn, then the final table."""
    controller, terminal = pty.openpty()
    command = [
        sys.executable, "-c", "from referee.cli import main; main()", "tournament", "--game", "crazy-eights",
        "--rules", "classic", "--set", "match_end=hands", "--set", "match_hands=1", "--table-size", "2",
        "--bots", str(BOTS / "strong"), str(BOTS / "weak"), "--deal-groups", "3", "--seed", "5",
        "--db", str(tmp_path / "t.sqlite"), "--bootstrap", "50", "--sandbox", "process", "--concurrency", "1",
    ]
    child = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal,
                             env={**os.environ, "COLUMNS": "100", "LINES": "40", "TERM": "xterm"})
    os.close(terminal)
    output = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 1.0)
        if not ready:
            if child.poll() is not None:
                break
            continue
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(controller)
    assert child.wait(timeout=120) == 0, output.decode(errors="replace")[-2000:]
    text = ANSI.sub("", output.decode(errors="replace"))
    assert "games" in text and "games/s" in text and "/6" in text
    assert "Provisional leaderboard after" in text
    assert "Ratings: t.sqlite" in text
    assert "groups 1/3" not in text  # the plain lines are for logs only

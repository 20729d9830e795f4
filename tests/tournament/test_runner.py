"""The runner end to end: real bots (processes), the real match loop, real SQLite files.

The three test bots differ only in how often they play a random legal action instead of a
greedy one (strong 0 %, medium 50 %, weak 100 %), and seed that randomness from the match id
and seat, so a tournament replays exactly.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.sandbox.base import BotSpec
from referee.tournament.config import ConfigError, TournamentConfig
from referee.tournament.runner import check_bots, replay_prefix, tournament_options
from referee.tournament.store import TournamentStore

from known_bots import BOTS

ROOT = Path(__file__).resolve().parents[2]
TALON = [sys.executable, "-c", "from referee.cli import main; main()"]
DEAL_KEY = "0123456789abcdef" * 2
"""One key for every run here, so that separate databases deal the same cards."""
GROUPS = 6
"""Deal groups per table (3 tables, about 2 s of play here)."""


def command(db: Path, *extra: str, groups: int = GROUPS) -> list[str]:
    return [
        *TALON, "tournament", "--game", "crazy-eights", "--rules", "classic",
        "--set", "match_end=hands", "--set", "match_hands=1", "--table-size", "2",
        "--bots", str(BOTS / "strong"), str(BOTS / "medium"), str(BOTS / "weak"),
        "--deal-groups", str(groups), "--seed", "7", "--deal-key", DEAL_KEY, "--db", str(db), "--bootstrap", "200", "--quiet",
        "--sandbox", "process", *extra,
    ]


def descendants(root: int) -> list[int]:
    """Every process below ``root`` (bots run in sessions of their own, not in its group)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found += children
        frontier += children
    return found


def start_time(pid: int) -> str | None:
    """The kernel's start time of a live (not zombie) ``pid``, which names it even if the pid is
    reused; None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def running_in(directory: Path) -> list[str]:
    """Live processes whose working directory is under ``directory`` (the process sandbox runs
    each bot in a copy of its directory made under $TMPDIR)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if entry.name.isdigit() and cwd.startswith(str(directory)) and start_time(int(entry.name)):
            found.append(f"{entry.name} in {cwd}")
    return found


def wait_for_groups(db: Path, child: subprocess.Popen[str], count: int) -> None:
    """Poll the database until ``count`` groups are committed (or the run ends)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
        if db.exists():
            try:
                with TournamentStore.read(db) as store:
                    if len(store.completed_groups()) >= count:
                        return
            except Exception:  # noqa: BLE001 - the file may be mid-creation
                continue


def outcomes(db: Path) -> list[tuple[object, ...]]:
    """Every stored match without its timings."""
    with TournamentStore.read(db) as store:
        return [(r.match_id, r.seats, r.seed, r.places, r.scores, r.failures, r.status) for r in store.results()]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    db = tmp_path_factory.mktemp("t") / "full.sqlite"
    done = subprocess.run(command(db, "--json", "--concurrency", "2"), cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return db, json.loads(done.stdout)


def test_known_strengths_come_out_in_order(uninterrupted: tuple[Path, list[dict[str, object]]]) -> None:
    db, rows = uninterrupted
    assert [r["bot"] for r in rows] == ["strong", "medium", "weak"]
    by_bot = {r["bot"]: r for r in rows}
    assert by_bot["weak"]["upper"] < by_bot["strong"]["lower"]  # type: ignore[operator]
    assert all(r["matches"] == 2 * 2 * GROUPS for r in rows)  # 2 tables each, 2 rotations, GROUPS groups
    assert all(r["failures"] == 0 for r in rows)
    with TournamentStore.read(db) as store:
        assert len(store.completed_groups()) == 3 * GROUPS


def test_sigkill_then_resume_gives_the_same_table(
    tmp_path: Path, uninterrupted: tuple[Path, list[dict[str, object]]]
) -> None:
    full_db, full_rows = uninterrupted
    db = tmp_path / "killed.sqlite"
    child = subprocess.Popen(command(db), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    wait_for_groups(db, child, 3)
    assert child.poll() is None, "the run finished before it could be killed"
    bots = descendants(child.pid)
    os.kill(child.pid, signal.SIGKILL)  # the runner dies without any cleanup
    child.wait()
    for pid in bots:  # its warm bots would wait for their next token forever
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    with TournamentStore.read(db) as store:
        partial = len(store.completed_groups())
    assert 3 <= partial < 3 * GROUPS
    resumed = subprocess.run(command(db, "--resume", "--json"), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert outcomes(db) == outcomes(full_db)
    assert json.loads(resumed.stdout) == full_rows


def _sigint_default() -> None:
    """In the child before exec: SIGINT back to its default. A shell without job control starts
    background commands (a CI run launched with ``&``) with SIGINT ignored, the ignoring is
    inherited through exec, and Python then leaves it ignored: the run would not see Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_cleanly_and_resume_gives_the_same_table(
    tmp_path: Path, uninterrupted: tuple[Path, list[dict[str, object]]]
) -> None:
    full_db, full_rows = uninterrupted
    db = tmp_path / "interrupted.sqlite"
    private = tmp_path / "tmp"  # the run's $TMPDIR: its referee socket and its bots' directories
    private.mkdir()
    child = subprocess.Popen(command(db, "--concurrency", "2"), cwd=ROOT, env={**os.environ, "TMPDIR": str(private)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_default)
    wait_for_groups(db, child, 1)
    bots = {pid: start_time(pid) for pid in descendants(child.pid)}
    assert bots and running_in(private), "no warm bot was running"
    wait_for_groups(db, child, 2)  # then interrupt at once: the run goes on while we look around
    assert child.poll() is None, "the run finished before it could be interrupted"
    child.send_signal(signal.SIGINT)  # what Ctrl-C sends
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "interrupted: the running matches were stopped" in err
    assert "Continue with:\n  talon tournament " in err and err.rstrip().endswith("--resume")
    assert [pid for pid, started in bots.items() if start_time(pid) == started] == []
    assert running_in(private) == [] and list(private.iterdir()) == []
    kept = outcomes(db)
    with TournamentStore.read(db) as store:
        assert 2 <= len(store.completed_groups()) < 3 * GROUPS
        assert len(kept) == 2 * len(store.completed_groups())
    assert set(kept) <= set(outcomes(full_db))  # committed groups are exactly what the full run played
    resumed = subprocess.run(command(db, "--resume", "--json"), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert outcomes(db) == outcomes(full_db)
    assert json.loads(resumed.stdout) == full_rows


def test_sigterm_stops_like_ctrl_c(tmp_path: Path, uninterrupted: tuple[Path, list[dict[str, object]]]) -> None:
    """SIGTERM (timeout, systemd, a CI cancel) ends a run as Ctrl-C does: bots stopped, what was
    played kept, the resume command shown; before, the process died and left its bots running."""
    full_db, full_rows = uninterrupted
    db = tmp_path / "terminated.sqlite"
    child = subprocess.Popen(command(db, "--concurrency", "2"), cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    wait_for_groups(db, child, 1)
    bots = {pid: start_time(pid) for pid in descendants(child.pid)}
    assert bots and child.poll() is None
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "interrupted: the running matches were stopped" in err and err.rstrip().endswith("--resume")
    assert [pid for pid, started in bots.items() if start_time(pid) == started] == []
    resumed = subprocess.run(command(db, "--resume", "--json"), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert outcomes(db) == outcomes(full_db) and json.loads(resumed.stdout) == full_rows


def test_a_second_run_on_the_same_database_is_refused_while_the_first_plays(tmp_path: Path) -> None:
    db = tmp_path / "busy.sqlite"
    first = subprocess.Popen(command(db, "--concurrency", "1"), cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_for_groups(db, first, 1)
        second = subprocess.run(command(db, "--resume"), cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert second.returncode == 1
        assert f"{db} is being played by another run (pid {first.pid}): wait for it" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=120)


def test_resume_refuses_other_settings_and_changed_bots(tmp_path: Path,
                                                        uninterrupted: tuple[Path, list[dict[str, object]]]) -> None:
    full_db, _ = uninterrupted
    copy = tmp_path / "copy.sqlite"
    shutil.copy(full_db, copy)
    other = subprocess.run([*command(copy, "--resume")[:-1], "--seed", "8", "--resume"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert other.returncode != 0 and "seed: 7 (stored) vs 8 (requested)" in other.stderr
    fresh = subprocess.run(command(copy), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert fresh.returncode != 0 and "pass --resume to continue it" in fresh.stderr
    bot = tmp_path / "strong"
    shutil.copytree(BOTS / "strong", bot)
    specs = {"strong": BotSpec.from_dir(bot), "weak": BotSpec.from_dir(BOTS / "weak")}
    config = TournamentConfig.make(game="crazy-eights", rules="classic", table_size=2, bots=list(specs), seed=1,
                                   deal_groups=1, options=tournament_options(list(specs.values()), None, None, None))
    check_bots(config, specs)
    (bot / "bot.py").write_text((bot / "bot.py").read_text().replace("EPSILON = 0.0", "EPSILON = 0.1"))
    with pytest.raises(ConfigError, match="bot code changed since the tournament started: strong"):
        check_bots(config, specs)
    with pytest.raises(ConfigError, match="the tournament's field is strong, weak"):
        check_bots(config, {"strong": specs["strong"]})


def test_failures_are_recorded_and_the_tournament_goes_on(tmp_path: Path) -> None:
    import asyncio

    from referee.tournament.runner import run_tournament

    specs = {"strong": BotSpec.from_dir(BOTS / "strong"), "crash": BotSpec.from_dir(ROOT / "sample_bots/misbehaving/crash")}
    config = TournamentConfig.make(
        game="crazy-eights", rules="classic", table_size=2, bots=list(specs), seed=3, deal_groups=2,
        rule_overrides={"match_end": "hands", "match_hands": 1},
        options=tournament_options(list(specs.values()), None, None, None),
    )
    seen: list[int] = []
    replays = tmp_path / "replays"
    with TournamentStore.open(tmp_path / "t.sqlite", config) as store:
        played = asyncio.run(run_tournament(store, specs, replay_dir=replays,
                                            on_progress=lambda p: seen.append(p.groups_done)))
        results = store.results()
        prefix = replay_prefix(store.config)
    assert played == 4 and seen == [1, 2] and len(results) == 4
    for result in results:  # named per tournament (match ids repeat across tournaments), stored absolute
        assert result.replay is not None and Path(result.replay).is_absolute()
        assert Path(result.replay).name == f"{prefix}-{result.match_id}.json"
        assert json.loads(Path(result.replay).read_text())["seed"] == result.seed
    for result in results:
        crash_seat = result.seats.index("crash")
        assert result.status == "forfeit" and result.places[crash_seat] == 2
        assert [(f.kind, f.seat) for f in result.failures] == [("crashed", crash_seat)]
        assert result.failures[0].decision >= 2 and "crashing on purpose" in result.failures[0].message


ONE_MATCH = """\
import os
from talon_sdk import Bot, run


class OneMatch(Bot):
    name = "one_match"

    def decide(self, view):
        return view.legal_actions[0]

    def on_end(self, result):
        os._exit(0)  # a warm instance that leaves after each match


run(OneMatch)
"""


def test_a_warm_bot_that_leaves_after_each_match_is_replaced_not_charged(tmp_path: Path) -> None:
    """Whether the next match finds such an instance already dead (replaced at once) or still
    alive (it dies before connecting) is a race; either way the match is played by a fresh
    instance and nobody is charged, so the table does not depend on timing."""
    import asyncio

    from referee.tournament.runner import run_tournament

    (tmp_path / "one_match").mkdir()
    (tmp_path / "one_match" / "bot.py").write_text(ONE_MATCH)
    specs = {"one_match": BotSpec.from_dir(tmp_path / "one_match"), "strong": BotSpec.from_dir(BOTS / "strong")}
    config = TournamentConfig.make(
        game="crazy-eights", rules="classic", table_size=2, bots=list(specs), seed=5, deal_groups=4,
        rule_overrides={"match_end": "hands", "match_hands": 1}, sandbox="process",
        options=tournament_options(list(specs.values()), None, None, None),
    )
    with TournamentStore.open(tmp_path / "t.sqlite", config) as store:
        played = asyncio.run(run_tournament(store, specs, concurrency=1))
        results = store.results()
    assert played == 8 and len(results) == 8
    assert [r.failures for r in results] == [()] * 8, [r.failures for r in results if r.failures]


@pytest.mark.parametrize(("table_size", "concurrency"), [(2, 1), (2, 2), (2, 3), (3, 2)])
def test_no_instance_sees_a_deal_twice(tmp_path: Path, table_size: int, concurrency: int) -> None:
    """The memory bot crashes if a deal comes back to it; warm instances must never let it.
    Three bots: heads-up, every bot plays both rotations of its tables' groups; at a table of
    three, all three rotations."""
    import asyncio

    from referee.tournament.runner import run_tournament

    specs = {name: BotSpec.from_dir(BOTS / name) for name in ("memory", "strong", "weak")}
    config = TournamentConfig.make(
        game="crazy-eights", rules="classic", table_size=table_size, bots=list(specs), seed=5, deal_groups=3,
        rule_overrides={"match_end": "hands", "match_hands": 1},
        options=tournament_options(list(specs.values()), None, None, None),
    )
    with TournamentStore.open(tmp_path / "t.sqlite", config) as store:
        played = asyncio.run(run_tournament(store, specs, concurrency=concurrency))
        results = store.results()
    tables = 3 if table_size == 2 else 1
    assert played == len(results) == tables * 3 * table_size
    assert [r.failures for r in results if r.failures] == []
    assert sum("memory" in r.seats for r in results) == (2 if table_size == 2 else 1) * 3 * table_size

"""The SQLite store: groups all or nothing, exact resume, clear refusals. Real files only."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from referee.tournament.config import ConfigError, TournamentConfig
from referee.tournament.results import Failure, MatchResult
from referee.tournament.schedule import DealGroup, Schedule
from referee.tournament.store import ConfigMismatchError, StoreError, TournamentStore

CONFIG = TournamentConfig.make(
    game="crazy-eights", rules="standard", table_size=3, bots=["ann", "bob", "cat", "dan"], seed=5, deal_groups=3
)


def played(group: DealGroup) -> list[MatchResult]:
    """Results for every match of ``group``: seat 0 wins, a tie for second on odd rotations."""
    results = []
    for m in group.matches:
        places = (1, 2, 2) if m.rotation % 2 else (1, 2, 3)
        failures = (Failure("timeout", 2, 7, "no answer in 1000 ms"),) if m.rotation == 2 else ()
        results.append(MatchResult.for_match(m, places, (0, 4.5, 9), failures, duration=0.25, replay=f"r/{m.match_id}.json"))
    return results


def test_groups_round_trip_and_resume_skips_completed(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with TournamentStore.open(db, CONFIG) as store:
        keyed = store.config
        schedule = Schedule.from_config(keyed)
        groups = list(schedule.groups())
        for group in groups[:5]:
            store.commit_group(group, played(group))
    with TournamentStore.open(db, CONFIG, resume=True) as store:
        assert store.completed_groups() == {g.key for g in groups[:5]}
        assert store.config == keyed == dataclasses.replace(CONFIG, deal_key=keyed.deal_key)
        for group in groups[5:]:
            store.commit_group(group, played(group))
    with TournamentStore.read(db) as store:
        results = store.results()
        assert store.match_count() == schedule.match_count == len(results)
    assert results == [r for g in groups for r in played(g)]  # every field, every game, in order


def test_every_tournament_draws_its_own_secret_deal_key(tmp_path: Path) -> None:
    """Seeds follow from the tournament seed *and* a key the bots never see: a bot that guesses
    or brute-forces the seed still cannot compute a deal. Giving the key replays the deals."""
    with TournamentStore.open(tmp_path / "a.sqlite", CONFIG) as a, TournamentStore.open(tmp_path / "b.sqlite", CONFIG) as b:
        keys = a.config.deal_key, b.config.deal_key
        seeds = [[g.seed for g in Schedule.from_config(s.config).groups()] for s in (a, b)]
    assert all(len(k) == 32 for k in keys) and keys[0] != keys[1]
    public = [g.seed for g in Schedule.from_config(CONFIG).groups()]
    assert len({tuple(public), *map(tuple, seeds)}) == 3
    again = dataclasses.replace(CONFIG, deal_key=keys[0])
    with TournamentStore.open(tmp_path / "c.sqlite", again) as c:
        assert c.config.deal_key == keys[0]
        assert [g.seed for g in Schedule.from_config(c.config).groups()] == seeds[0]
    with pytest.raises(ConfigMismatchError, match="deal_key"):
        TournamentStore.open(tmp_path / "a.sqlite", dataclasses.replace(CONFIG, deal_key=keys[1]), resume=True)
    with pytest.raises(ConfigError, match="deal key 'XYZ' is not allowed; allowed: 32 lowercase hex digits"):
        dataclasses.replace(CONFIG, deal_key="XYZ").validate()


def test_a_group_is_all_or_nothing(tmp_path: Path) -> None:
    group = Schedule.from_config(CONFIG).group(1, 0)
    good = played(group)
    wrong = list(good)
    wrong[2] = MatchResult.for_match(Schedule.from_config(CONFIG).group(1, 1).matches[2], (1, 2, 3), (0, 0, 0))
    with TournamentStore.open(tmp_path / "t.sqlite", CONFIG) as store:
        with pytest.raises(StoreError, match=r"is not a match of deal group \(1, 0\)"):
            store.commit_group(group, wrong)  # fails after two matches were written
        assert store.completed_groups() == set() and store.match_count() == 0
        with pytest.raises(StoreError, match="has 3 matches; got 2"):
            store.commit_group(group, good[:2])
        store.commit_group(group, good)
        with pytest.raises(StoreError, match=r"deal group \(1, 0\) is already stored"):
            store.commit_group(group, good)
        assert store.match_count() == 3


def test_pending_matches_survive_until_their_group_commits(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    group = Schedule.from_config(CONFIG).group(2, 1)
    results = played(group)
    with TournamentStore.open(db, CONFIG) as store:
        store.record_pending(results[0])
        store.record_pending(results[1])
    with TournamentStore.open(db, CONFIG, resume=True) as store:
        assert store.pending(2, 1) == results[:2]
        assert store.completed_groups() == set() and store.results() == []
        store.commit_group(group, results)
        assert store.pending(2, 1) == []


def test_refusals_say_what_to_do(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with pytest.raises(StoreError, match="does not exist; run without --resume"):
        TournamentStore.open(db, CONFIG, resume=True)
    TournamentStore.open(db, CONFIG).close()
    with pytest.raises(StoreError, match="already holds a tournament .*pass --resume"):
        TournamentStore.open(db, CONFIG)
    other = TournamentConfig.from_json({**CONFIG.to_json(), "seed": 6, "deal_groups": 4})
    with pytest.raises(ConfigMismatchError) as caught:
        TournamentStore.open(db, other, resume=True)
    assert "deal_groups: 3 (stored) vs 4 (requested)" in str(caught.value)
    assert "seed: 5 (stored) vs 6 (requested)" in str(caught.value)
    with pytest.raises(StoreError, match="no tournament database at"):
        TournamentStore.read(tmp_path / "missing.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not a database, it is a text file\n" * 100)
    with pytest.raises(StoreError, match="not a .*database"):
        TournamentStore.read(junk)
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE songs (title TEXT)")
    with pytest.raises(StoreError, match=r"not a Talon tournament \(its tables: songs\)"):
        TournamentStore.read(foreign)


WRITER = textwrap.dedent(
    """
    import json, sys
    from referee.tournament.config import ConfigError, TournamentConfig
    from referee.tournament.schedule import Schedule
    from referee.tournament.store import TournamentStore
    from tests.tournament.test_store import played

    config = TournamentConfig.from_json(json.loads(sys.argv[2]))
    with TournamentStore.open(sys.argv[1], config, resume=True) as store:
        done = store.completed_groups()
        for group in Schedule.from_config(config).groups():
            if group.key not in done:
                for result in played(group):
                    store.record_pending(result)
                store.commit_group(group, played(group))
    print("finished", flush=True)
    """
)


def test_sigkill_never_leaves_half_a_group(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    big = TournamentConfig.from_json({**CONFIG.to_json(), "deal_groups": 400})
    TournamentStore.open(db, big).close()
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), json.dumps(big.to_json())],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.05)
        with TournamentStore.read(db) as store:
            if len(store.completed_groups()) >= 20:
                break
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    with TournamentStore.read(db) as store:
        done = store.completed_groups()
        results = store.results()
    assert 20 <= len(done) < 1600, "killed mid-run"
    assert len(results) == 3 * len(done)
    assert {r.group_key for r in results} == done
    # and the resumed run completes the tournament exactly
    finish = subprocess.run(
        [sys.executable, "-c", WRITER, str(db), json.dumps(big.to_json())],
        cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=300,
    )
    assert finish.stdout.strip() == "finished", finish.stderr
    with TournamentStore.read(db) as store:
        schedule = Schedule.from_config(big)
        assert store.results() == [r for g in schedule.groups() for r in played(g)]


def test_one_run_at_a_time_plays_into_a_database(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with TournamentStore.open(db, CONFIG):
        with pytest.raises(StoreError, match=rf"is being played by another run \(pid {os.getpid()}\)"):
            TournamentStore.open(db, CONFIG, resume=True)
        with TournamentStore.read(db) as reader:  # reading while it plays is fine
            assert reader.config.seed == CONFIG.seed
    with TournamentStore.open(db, CONFIG, resume=True):  # released on close
        pass


def test_reading_writes_nothing_even_where_the_folder_cannot_be_written(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Rating a tournament reads its database query-only, and in a folder it cannot write (the
    tests run as root, who can write anywhere: the check is made to say so) as immutable, since
    SQLite could not even make the WAL index there. Before, reading switched the file to WAL."""
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "t.sqlite"
    with TournamentStore.open(db, CONFIG) as store:
        for group in Schedule.from_config(store.config).groups():
            store.commit_group(group, played(group))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    for writable in (True, False):
        if not writable:
            monkeypatch.setattr(os, "access", lambda path, mode: False)
        with TournamentStore.read(db) as reader:
            assert len(reader.results()) == 3 * 3 * 4
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # no file made or changed
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (x)").connection.commit()
    with pytest.raises(StoreError, match="not a Talon tournament"):
        TournamentStore.read(foreign)
    assert sqlite3.connect(foreign).execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # left as it was

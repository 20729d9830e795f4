"""SQLite persistence for a tournament: results that survive a crash, and an exact resume.

One file per tournament (stdlib :mod:`sqlite3`, WAL journal). It holds the config, every
completed deal group and its matches, and a ``pending`` table of single matches recorded the
moment they finish.

Why these rules:

* **The deal group is the unit of completeness.** :meth:`TournamentStore.commit_group` writes
  a group's row and all of its k matches in ONE transaction, so a crash (even SIGKILL) leaves
  either the whole group or none of it. Ratings read only completed groups, so the
  bootstrap's resampling unit is always whole.
* **Resume replays the schedule and skips what is done.** The schedule is a pure function of
  the config, so :meth:`~TournamentStore.completed_groups` is all a resumed run needs to play
  every remaining game exactly once. The stored config must equal the requested one, or the
  store refuses (:class:`ConfigMismatchError`) and names every difference.
* **Nothing played is lost.** A runner may :meth:`~TournamentStore.record_pending` each match
  as it ends; after a crash, :meth:`~TournamentStore.pending` returns the finished matches of
  an unfinished group so they need not be played again. Committing the group clears them.

Durability: ``synchronous=NORMAL`` under WAL survives a crash of the process (the case that
matters: a killed runner) but a power cut may lose the last few commits, which a resume then
simply plays again.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from referee.tournament.config import ConfigError, TournamentConfig
from referee.tournament.results import Failure, MatchResult, ResultError
from referee.tournament.schedule import DealGroup

SCHEMA_VERSION = 1
APPLICATION = "talon-tournament"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS config (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    json TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS deal_groups (
    tbl INTEGER NOT NULL,
    grp INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    completed REAL NOT NULL,
    PRIMARY KEY (tbl, grp)
);
CREATE TABLE IF NOT EXISTS matches (
    match_id TEXT PRIMARY KEY,
    tbl INTEGER NOT NULL,
    grp INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    places TEXT NOT NULL,
    scores TEXT NOT NULL,
    failures TEXT NOT NULL,
    duration REAL NOT NULL,
    replay TEXT,
    status TEXT NOT NULL,
    FOREIGN KEY (tbl, grp) REFERENCES deal_groups (tbl, grp)
);
CREATE INDEX IF NOT EXISTS matches_by_group ON matches (tbl, grp);
CREATE TABLE IF NOT EXISTS pending (
    match_id TEXT PRIMARY KEY,
    tbl INTEGER NOT NULL,
    grp INTEGER NOT NULL,
    json TEXT NOT NULL,
    recorded REAL NOT NULL
);
"""

_COLUMNS = "match_id, tbl, grp, rotation, seed, seats, places, scores, failures, duration, replay, status"


class StoreError(RuntimeError):
    """The database cannot be used as asked; the message says what to do instead."""


class ConfigMismatchError(StoreError):
    """A resume asked for a different tournament than the one stored."""


class TournamentStore:
    """An open tournament database. Use :meth:`open` (to run) or :meth:`read` (to rate)."""

    def __init__(self, connection: sqlite3.Connection, path: Path, config: TournamentConfig,
                 lock: int | None = None) -> None:
        self._db = connection
        self.path = path
        self.config = config
        self._lock = lock
        """The run lock's file descriptor (a store opened to play), released on close."""

    # --- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, config: TournamentConfig, *, resume: bool = False) -> TournamentStore:
        """The store of ``config`` at ``path``: a new one, or (``resume``) the one stored there.

        :raises StoreError: if the file holds a tournament and ``resume`` is false, or holds
            no tournament and ``resume`` is true, or is not a Talon tournament database.
        :raises ConfigMismatchError: if resuming a tournament whose config differs.
        """
        path = Path(path)
        exists = path.exists() and path.stat().st_size > 0
        if resume and not exists:
            raise StoreError(f"cannot resume: {path} does not exist; run without --resume to start it")
        try:  # a fresh checkout has no out/: make the folder rather than fail on it
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"cannot create the folder of {path} ({err.strerror or err})") from None
        lock = _run_lock(path)
        try:
            store = cls._open_locked(path, config, resume, exists, lock)
        except BaseException:
            os.close(lock)
            raise
        return store

    @classmethod
    def _open_locked(cls, path: Path, config: TournamentConfig, resume: bool, exists: bool,
                     lock: int) -> TournamentStore:
        db = _connect(path)
        try:
            stored = _stored_config(db, path) if exists else None
            if stored is None:
                if resume:
                    raise StoreError(f"cannot resume: {path} holds no tournament; run without --resume")
                config = config.with_deal_key()
                try:
                    _create(db, config)
                except sqlite3.IntegrityError:  # another run created it between our look and our write
                    raise StoreError(f"{path} already holds a tournament, created by another run just now; pass "
                                     "--resume to continue it, or choose another --db file") from None
                return cls(db, path, config, lock)
            if not resume:
                raise StoreError(
                    f"{path} already holds a tournament ({stored.game}, {len(stored.bots)} bots, "
                    f"seed {stored.seed}); pass --resume to continue it, or choose another --db file"
                )
            differences = stored.differences(config)
            if differences:
                raise ConfigMismatchError(
                    f"cannot resume {path}: the stored tournament differs from the requested one:\n  "
                    + "\n  ".join(differences)
                    + "\nresume with the stored settings, or start a new --db file"
                )
            return cls(db, path, stored, lock)
        except BaseException:
            db.close()
            raise

    @classmethod
    def read(cls, path: str | Path) -> TournamentStore:
        """An existing tournament database, to read results from.

        :raises StoreError: if there is no such file or it is not a Talon tournament database.
        """
        path = Path(path)
        if not path.is_file():
            raise StoreError(f"no tournament database at {path}")
        db = _connect(path, read_only=True)
        try:
            config = _stored_config(db, path)
        except BaseException:
            db.close()
            raise
        if config is None:
            db.close()
            raise StoreError(f"{path} holds no tournament yet")
        return cls(db, path, config)

    def close(self) -> None:
        self._db.close()
        if self._lock is not None:
            os.close(self._lock)  # releases the run lock
            self._lock = None

    def __enter__(self) -> TournamentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------------------

    def commit_group(self, group: DealGroup, results: Sequence[MatchResult]) -> None:
        """Store a finished deal group and all its matches in one transaction.

        Each result must be one of the group's scheduled matches (same id, seats, seed,
        rotation), each exactly once. Anything wrong rolls the whole group back.

        :raises StoreError: naming the mismatch, or if the group was already stored.
        """
        if len(results) != len(group.matches):
            raise StoreError(
                f"deal group {group.key} has {len(group.matches)} matches; got {len(results)} results"
            )
        expected = {m.match_id: m for m in group.matches}
        now = time.time()
        with self._transaction():
            try:
                self._db.execute(
                    "INSERT INTO deal_groups (tbl, grp, seed, completed) VALUES (?, ?, ?, ?)",
                    (group.table, group.group, group.seed, now),
                )
            except sqlite3.IntegrityError:
                raise StoreError(f"deal group {group.key} is already stored") from None
            for result in results:
                match = expected.pop(result.match_id, None)
                if match is None or (result.seats, result.seed, result.rotation) != (
                    match.seats,
                    match.seed,
                    match.rotation,
                ) or result.group_key != group.key:
                    raise StoreError(
                        f"result {result.match_id} (seats {', '.join(result.seats)}, seed {result.seed}) "
                        f"is not a match of deal group {group.key} or is given twice"
                    )
                self._db.execute(f"INSERT INTO matches ({_COLUMNS}) VALUES ({', '.join('?' * 12)})", _row(result))
            self._db.execute("DELETE FROM pending WHERE tbl = ? AND grp = ?", group.key)

    def record_pending(self, result: MatchResult) -> None:
        """Keep one finished match of a group not yet complete (replaces an earlier copy)."""
        with self._transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO pending (match_id, tbl, grp, json, recorded) VALUES (?, ?, ?, ?, ?)",
                (result.match_id, result.table, result.group, json.dumps(result.to_json()), time.time()),
            )

    # --- reading ------------------------------------------------------------------------------

    def completed_groups(self) -> set[tuple[int, int]]:
        """``(table, group)`` of every stored deal group."""
        return {(int(t), int(g)) for t, g in self._db.execute("SELECT tbl, grp FROM deal_groups")}

    def pending(self, table: int, group: int) -> list[MatchResult]:
        """Finished matches of the unfinished deal group ``(table, group)``, by rotation."""
        rows = self._db.execute("SELECT json FROM pending WHERE tbl = ? AND grp = ?", (table, group))
        return sorted((MatchResult.from_json(json.loads(r[0])) for r in rows), key=lambda r: r.rotation)

    def results(self) -> list[MatchResult]:
        """Every match of every completed deal group, in schedule order (group, table, rotation)."""
        rows = self._db.execute(f"SELECT {_COLUMNS} FROM matches ORDER BY grp, tbl, rotation")
        try:
            return [_result(row) for row in rows]
        except (ValueError, KeyError, TypeError, ResultError) as err:
            raise StoreError(f"{self.path}: a stored match is corrupt ({err})") from None

    def match_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as err:  # a full disk, an unwritable file: nothing half-written
            raise StoreError(f"{self.path}: cannot write ({err}); what was committed is kept: fix this, then "
                             "run again with --resume") from None


def _run_lock(path: Path) -> int:
    """Hold ``<db>.lock`` for as long as this run plays into ``path``; refuse if another run does
    (two runs would play the same deal groups and both fail on the second commit)."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise StoreError(f"cannot create {lock_path} ({err.strerror or err}): is the folder writable?") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise StoreError(f"{path} is being played by another run ({holder}): wait for it, or stop it and "
                         "--resume") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
    return fd


def _connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    """A connection; ``read_only`` for rating and reports (a database in a read-only folder,
    and a foreign file, are read without changing anything, not even the journal mode)."""
    try:
        if read_only:
            writable = os.access(path, os.W_OK) and os.access(path.resolve().parent, os.W_OK)
            # a writable file is opened as usual (its last connection tidies the WAL files away);
            # an unwritable one as immutable (SQLite cannot even make the WAL index beside it);
            # either way nothing is written, the journal mode included
            db = sqlite3.connect(path if writable else f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=not writable,
                                 isolation_level=None, timeout=30.0)
            db.execute("PRAGMA query_only=ON")
            return db
        db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error as err:
        raise StoreError(f"{path} is not a usable SQLite database ({err})") from None
    return db


def _stored_config(db: sqlite3.Connection, path: Path) -> TournamentConfig | None:
    """The config stored in ``db``; ``None`` for an empty database."""
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return None
        if "meta" not in tables or "config" not in tables:
            raise StoreError(
                f"{path} is a SQLite database but not a Talon tournament "
                f"(its tables: {', '.join(sorted(tables))})"
            )
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        row = db.execute("SELECT json FROM config WHERE id = 1").fetchone()
        if row is None and not meta:
            return None  # created, then stopped before the config was stored
        if meta.get("application") != APPLICATION:
            raise StoreError(f"{path} is a SQLite database but not a Talon tournament")
        if meta.get("schema") != str(SCHEMA_VERSION):
            raise StoreError(
                f"{path} has tournament schema {meta.get('schema')}; this Talon reads schema {SCHEMA_VERSION}"
            )
        if row is None:
            return None
        return TournamentConfig.from_json(json.loads(row[0]))
    except sqlite3.DatabaseError as err:
        raise StoreError(f"{path} is not a Talon tournament database ({err})") from None
    except (ConfigError, ValueError) as err:
        raise StoreError(f"{path}: the stored tournament config is invalid ({err})") from None


def _create(db: sqlite3.Connection, config: TournamentConfig) -> None:
    """Lay out the schema, then store the config (a crash in between leaves an empty store)."""
    db.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
    db.execute("BEGIN IMMEDIATE")
    try:
        db.executemany(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [("application", APPLICATION), ("schema", str(SCHEMA_VERSION))],
        )
        db.execute(
            "INSERT INTO config (id, json, created) VALUES (1, ?, ?)",
            (json.dumps(config.to_json(), sort_keys=True), time.time()),
        )
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _row(result: MatchResult) -> tuple[Any, ...]:
    return (
        result.match_id,
        result.table,
        result.group,
        result.rotation,
        result.seed,
        json.dumps(list(result.seats)),
        json.dumps(list(result.places)),
        json.dumps(list(result.scores)),
        json.dumps([f.to_json() for f in result.failures]),
        result.duration,
        result.replay,
        result.status,
    )


def _result(row: Sequence[Any]) -> MatchResult:
    return MatchResult(
        match_id=row[0],
        table=int(row[1]),
        group=int(row[2]),
        rotation=int(row[3]),
        seed=int(row[4]),
        seats=tuple(json.loads(row[5])),
        places=tuple(json.loads(row[6])),
        scores=tuple(float(s) for s in json.loads(row[7])),
        failures=tuple(Failure.from_json(f) for f in json.loads(row[8])),
        duration=float(row[9]),
        replay=row[10],
        status=row[11],
    )

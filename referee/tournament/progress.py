"""What ``talon tournament`` shows while it plays: a live display on a terminal, a few lines in a log.

On a terminal (:class:`LiveView`): a progress bar with games done / total, games per second
and the time left, above the provisional leaderboard (the runner's OpenSkill table, tau = 0),
redrawn as matches finish and deal groups are committed. The display is transient: when the
run ends it makes way for the final Plackett–Luce table, which is the one that counts.

Elsewhere (:class:`PlainLines`; stdout not a terminal, or ``--json``): one line per 5 % of the
deal groups, so a CI log of a long tournament stays about twenty lines long.

Both take the runner's :class:`~referee.tournament.runner.Progress` through ``match`` (after
every match) and ``group`` (after every committed group). The rate counts only this run's
matches, so a resumed tournament does not claim the earlier runs' games as speed.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import IO, Protocol

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bar
from rich.table import Table
from rich.text import Text

from referee.tournament.ratings import LiveRating
from referee.tournament.runner import Progress

PLAIN_STEPS = 20
"""Plain lines per tournament (one per 5 % of the deal groups), plus the last one."""


class ProgressView(Protocol):
    """Where the runner's progress goes; used as a context manager around the run."""

    def match(self, progress: Progress) -> None: ...

    def group(self, progress: Progress) -> None: ...

    def __enter__(self) -> ProgressView: ...

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None: ...


class _RateColumn(ProgressColumn):
    """Games per second, over rich's sliding window (the last 30 s)."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("-- games/s" if speed is None else f"{speed:.2f} games/s", style="progress.data.speed")


class _EtaColumn(ProgressColumn):
    """Time left at the current rate, once there is a rate."""

    def render(self, task: Task) -> Text:
        left = task.time_remaining
        return Text("ETA --" if left is None else f"ETA {_clock(left)}", style="progress.remaining")


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def provisional_table(rows: tuple[LiveRating, ...], groups_done: int, groups_total: int) -> Table:
    """The live leaderboard: OpenSkill mu, sigma and ordinal (mu - 3 sigma) per bot."""
    table = Table(title=f"Provisional leaderboard after {groups_done}/{groups_total} deal groups",
                  caption="OpenSkill, tau = 0 (the final table is Plackett–Luce)",
                  title_justify="left", caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot")
    for name in ("mu", "sigma", "ordinal", "matches"):
        table.add_column(name, justify="right")
    for rank, row in enumerate(rows, 1):
        table.add_row(str(rank), row.bot, f"{row.mu:.1f}", f"{row.sigma:.2f}", f"{row.ordinal:.1f}",
                      str(row.matches))
    return table


class LiveView:
    """A rich progress bar over the provisional leaderboard, on a terminal."""

    def __init__(self, console: Console, matches_done: int, matches_total: int) -> None:
        self.bar = Bar(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), _RateColumn(), _EtaColumn(),
                       TextColumn("elapsed"), TimeElapsedColumn(), console=console)
        self.task = self.bar.add_task("games", total=matches_total, completed=matches_done)
        self.table: RenderableType = Text("Provisional leaderboard: after the first deal group", style="dim")
        self.live = Live(self._view(), console=console, refresh_per_second=4, transient=True)

    def _view(self) -> Group:
        return Group(self.bar, self.table)

    def match(self, progress: Progress) -> None:
        self.bar.update(self.task, completed=progress.matches_done)

    def group(self, progress: Progress) -> None:
        self.bar.update(self.task, completed=progress.matches_done)
        self.table = provisional_table(progress.live.table(), progress.groups_done, progress.groups_total)
        self.live.update(self._view())

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.live.__exit__(kind, error, trace)


class PlainLines:
    """One progress line per 5 % of the deal groups (and the last group), for logs."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self._next_step = 0

    def match(self, progress: Progress) -> None:
        """Matches alone print nothing: a line per match would flood a log."""

    def group(self, progress: Progress) -> None:
        step = progress.groups_done * PLAIN_STEPS // max(1, progress.groups_total)
        if step < self._next_step and progress.groups_done < progress.groups_total:
            return
        self._next_step = step + 1
        self.stream.write(self.line(progress, time.monotonic() - self.started) + "\n")
        self.stream.flush()

    @staticmethod
    def line(progress: Progress, seconds: float) -> str:
        """``groups 10/100 (10%), games 20/200, 1.84 games/s, ETA 1:38; provisional: ...``."""
        rate = progress.matches_played / seconds if seconds > 0 else 0.0
        left = progress.matches_total - progress.matches_done
        eta = _clock(left / rate) if rate > 0 else "--"
        top = ", ".join(f"{r.bot} {r.mu:.1f}" for r in progress.live.table()[:3])
        share = 100 * progress.groups_done // max(1, progress.groups_total)
        return (f"groups {progress.groups_done}/{progress.groups_total} ({share}%), games "
                f"{progress.matches_done}/{progress.matches_total}, {rate:.2f} games/s, ETA {eta}; "
                f"provisional: {top}")

    def __enter__(self) -> PlainLines:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        return None


class Silent:
    """``--quiet``: nothing at all."""

    def match(self, progress: Progress) -> None:
        pass

    def group(self, progress: Progress) -> None:
        pass

    def __enter__(self) -> Silent:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        return None

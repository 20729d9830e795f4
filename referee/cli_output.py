"""Output files of the CLI (a replay, a report, a CSV): folders made, failures in words.

Why: a fresh checkout has no ``out/``, and the README's commands write there; a missing folder
must neither lose a match that was played nor end in a traceback.
"""

from __future__ import annotations

from pathlib import Path

import click


def make_folder(folder: Path, option: str, named: Path | None = None, what: str = "it") -> None:
    """Make ``folder`` (and its parents) before the work starts, so a bad path fails in seconds,
    not after a match; :raises click.ClickException: naming the option, the path and why."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise click.ClickException(f"{option} {named or folder}: cannot create {what} ({err.strerror or err})") from None


def check_writable(path: Path, option: str) -> None:
    """Make the folder of the file ``path``, and refuse a folder given as a file."""
    make_folder(path.parent, option, named=path, what="its folder")
    if path.is_dir():
        raise click.ClickException(f"{option} {path}: is a folder; give a file name")


def write_output(path: Path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` (folder made); :raises click.ClickException: naming why not."""
    check_writable(path, option)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise click.ClickException(f"{option} {path}: cannot write it ({err.strerror or err})") from None

"""The tournament tests' bots, written out once per test session into a temporary directory.

``strong``, ``medium`` and ``weak`` are one bot, ``bots/epsilon_greedy.py``, which plays a
random legal action with probability EPSILON (0, 0.5 and 1) and a greedy one otherwise; each
needs a directory of its own, since a bot is a directory and its name is the directory's.
``memory`` (``bots/memory``) is copied as it is.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

SOURCES = Path(__file__).resolve().parent / "bots"
STRENGTHS = {"strong": 0.0, "medium": 0.5, "weak": 1.0}


def _write_bots() -> Path:
    root = Path(tempfile.mkdtemp(prefix="talon-test-bots-"))
    atexit.register(shutil.rmtree, root, True)
    template = (SOURCES / "epsilon_greedy.py").read_text()
    if template.count("EPSILON = 0.0") != 1:
        raise RuntimeError("bots/epsilon_greedy.py must set EPSILON = 0.0 exactly once")
    for name, epsilon in STRENGTHS.items():
        (root / name).mkdir()
        (root / name / "bot.py").write_text(template.replace("EPSILON = 0.0", f"EPSILON = {epsilon}"))
    shutil.copytree(SOURCES / "memory", root / "memory")
    return root


BOTS = _write_bots()
"""The directory holding ``strong``, ``medium``, ``weak`` and ``memory``."""

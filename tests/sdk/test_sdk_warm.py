"""A warm bot (TALON_TOKEN_FILE) stops by itself: on "exit", and when its referee dies."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BOT = REPO / "sample_bots" / "random" / "bot.py"


def _env(token_file: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "TALON_ADDRESS": "unix:///nonexistent/r.sock",
            "TALON_TOKEN_FILE": str(token_file)}


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] == "Z"


def _orphan_stops(starter: str) -> None:
    """Run ``starter`` (which starts a warm bot, prints its pid and exits); the bot must stop."""
    out = subprocess.run([sys.executable, "-c", starter], capture_output=True, text=True, timeout=60)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 20
    while not _gone(pid):
        assert time.monotonic() < deadline, "the orphaned warm bot kept running"
        time.sleep(0.05)


def test_a_warm_bot_stops_when_the_token_file_says_exit(tmp_path):
    token_file = tmp_path / "token"
    proc = subprocess.Popen([sys.executable, str(BOT)], env=_env(token_file), stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    assert proc.poll() is None  # waiting for a token
    token_file.write_text("exit")
    assert proc.wait(timeout=20) == 0
    assert "token file says exit" in proc.stderr.read()


def test_a_warm_bot_does_not_outlive_the_process_that_started_it(tmp_path):
    token_file = tmp_path / "token"
    starter = ("import subprocess, sys, os\n"
               f"p = subprocess.Popen([sys.executable, {str(BOT)!r}], env={_env(token_file)!r}, "
               "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "print(p.pid, flush=True)\n"
               "import time; time.sleep(3)\n")  # then exits, leaving the started bot re-parented
    _orphan_stops(starter)


def test_a_warm_bot_whose_referee_died_before_it_started_stops_too(tmp_path):
    """The starter exits at once, before the bot has even imported the SDK: the bot is an orphan
    from its first instruction, so only the parent the sandbox named (TALON_PARENT_PID) tells."""
    token_file = tmp_path / "token"
    starter = ("import subprocess, sys, os\n"
               f"env = dict({_env(token_file)!r}, TALON_PARENT_PID=str(os.getpid()))\n"
               f"p = subprocess.Popen([sys.executable, {str(BOT)!r}], env=env, "
               "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "print(p.pid, flush=True)\n")  # and exits before the bot has started
    _orphan_stops(starter)

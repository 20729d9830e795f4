"""Hostile bot: forks from every process for a few seconds (then they all exit).

The bomb is bounded in time so that a sandbox without a pids limit does not take the machine
down with it; the sandbox must stop it well before that anyway.
"""

import errno
import json
import os
import time

SECONDS = float(os.environ.get("FORK_BOMB_SECONDS", "3"))


def cgroup_value(name):
    for path in (f"/sys/fs/cgroup/pids/{name}", f"/sys/fs/cgroup/{name}"):
        try:
            with open(path) as handle:
                return handle.read().strip()
        except OSError:
            continue
    return "?"


end = time.monotonic() + SECONDS
first = os.getpid()
forks = 0
refused = 0
peak = 0
while time.monotonic() < end:
    try:
        pid = os.fork()
    except OSError as error:
        if error.errno not in (errno.EAGAIN, errno.ENOMEM):
            raise
        refused += 1
        if os.getpid() == first and refused % 200 == 1:
            current = cgroup_value("pids.current")
            peak = max(peak, int(current)) if current.isdigit() else peak
        time.sleep(0.001)
        continue
    if pid != 0:
        forks += 1
if os.getpid() != first:
    os._exit(0)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
limit = cgroup_value("pids.max")
escaped = refused == 0
print(f"{'ESCAPED' if escaped else 'BLOCKED'} fork bomb: first process forked {forks} times, "
      f"{refused} forks refused, peak {peak} tasks, pids.max {limit}", flush=True)
print("RESULT " + json.dumps({"fork bomb": "escaped" if escaped else "blocked",
                              "refused": refused, "peak": peak, "limit": limit}), flush=True)

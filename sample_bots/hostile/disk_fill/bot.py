"""Hostile bot: fills every writable place it finds and writes everywhere else.

Writes stop at CEILING_MIB (default 2 GiB) per place, which counts as an escape."""

import json
import os

CHUNK = b"\0" * (1024 * 1024)
CEILING_MIB = int(os.environ.get("DISK_FILL_CEILING_MIB", "2048"))
results = {}


def report(attempt, escaped, detail):
    results[attempt] = "escaped" if escaped else "blocked"
    print(f"{'ESCAPED' if escaped else 'BLOCKED'} {attempt}: {detail}", flush=True)


def fill(attempt, directory):
    path = os.path.join(directory, "talon-fill")
    written = 0
    try:
        with open(path, "wb") as handle:
            while written < CEILING_MIB:
                handle.write(CHUNK)
                handle.flush()
                written += 1
        report(attempt, True, f"wrote {written} MiB to {directory}")
    except OSError as error:
        report(attempt, False, f"stopped after {written} MiB: {type(error).__name__}: {error}")
    results[attempt + " MiB"] = written
    try:
        os.unlink(path)
    except OSError:
        pass


fill("tmp", "/tmp")
fill("shm", "/dev/shm")
for directory in ("/", "/bot", "/etc", "/var/tmp", "/home", "/talon", "/usr/local/lib"):
    try:
        with open(os.path.join(directory, "talon-fill"), "wb") as handle:
            handle.write(CHUNK)
        report(f"write {directory}", True, "wrote 1 MiB")
    except OSError as error:
        report(f"write {directory}", False, f"{type(error).__name__}: {error}")
print("RESULT " + json.dumps(results), flush=True)

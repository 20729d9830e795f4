"""Hostile bot: allocates and touches memory, 16 MiB at a time, until it is stopped.

Reaching CEILING_MIB (default 8 GiB) without being killed counts as an escape."""

import json
import os

CHUNK = 16 * 1024 * 1024
CEILING_MIB = int(os.environ.get("MEMORY_HOG_CEILING_MIB", "8192"))

hoard = []
while len(hoard) * 16 < CEILING_MIB:
    hoard.append(bytearray(b"\1") * CHUNK)
    if len(hoard) % 4 == 0:
        print(f"holding {len(hoard) * 16} MiB", flush=True)
print(f"ESCAPED memory: held {CEILING_MIB} MiB without being stopped", flush=True)
print("RESULT " + json.dumps({"memory": "escaped"}), flush=True)

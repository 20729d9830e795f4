"""Make the ismcts bot's package and the strength benchmark's in-process harness importable."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
for path in (REPO / "sample_bots" / "ismcts", REPO / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

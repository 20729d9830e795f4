"""Fixtures for the referee tests: a real gRPC referee on a real Unix socket, real bot processes.

One referee service and one event loop serve a whole test module (``arena``), so the module's
last test can check that the server survived everything the earlier tests threw at it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee_support import Arena


@pytest.fixture(scope="module")
def arena() -> Iterator[Arena]:
    a = Arena()
    yield a
    a.close()

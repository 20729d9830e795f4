"""Fixtures for the sandbox tests: they use the real Docker engine, never a fake one.

Without an engine (or without root, which the socket chown and debootstrap need) they skip,
unless ``TALON_REQUIRE_DOCKER=1`` (CI) makes that a failure. The base image is built once
per SDK version and reused across runs (its tag is the cache key).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import docker
import docker.errors
import pytest

from referee.sandbox.image import BaseImageRecipe, ensure_base_image


def _unavailable(reason: str) -> None:
    if os.environ.get("TALON_REQUIRE_DOCKER") == "1":
        pytest.fail(f"TALON_REQUIRE_DOCKER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    if os.geteuid() != 0:
        _unavailable("the Docker sandbox tests need root")
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as error:
        _unavailable(f"no Docker engine: {error}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def base_image(docker_client: docker.DockerClient) -> str:
    """The base image for this checkout's SDK, built on first use (about a minute)."""
    return ensure_base_image(docker_client, BaseImageRecipe.from_host()).tag

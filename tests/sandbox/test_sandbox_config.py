"""Configuration of the sandbox, of the base image and of bot directories: checked once,
errors say what to fix. These need no Docker engine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.sandbox import apt_sources
from referee.sandbox.base import SandboxError
from referee.sandbox.docker_limits import GIB, MIB, DockerLimits, parse_size
from referee.sandbox.docker_sandbox import DockerSandboxConfig, owner_is_alive, owner_label
from referee.sandbox.image import REPO_ROOT, BaseImageRecipe


def test_default_limits_map_to_docker_settings() -> None:
    kwargs = DockerLimits().create_kwargs()
    assert kwargs["network_mode"] == "none" and kwargs["network_disabled"] is True
    assert kwargs["read_only"] is True
    assert kwargs["mem_limit"] == kwargs["memswap_limit"] == GIB
    assert kwargs["nano_cpus"] == 1_000_000_000 and kwargs["pids_limit"] == 256
    assert kwargs["cap_drop"] == ["ALL"] and kwargs["security_opt"] == ["no-new-privileges"]
    assert kwargs["user"] == "10001:10001"
    limits = DockerLimits()
    assert limits.create_kwargs(10500)["user"] == "10500:10500"
    assert [limits.uid_for(n) for n in (0, 1, 4095, 4096, 4097)] == [10001, 10002, 14096, 10001, 10002]
    assert DockerLimits(uid_span=1).uid_for(7) == 10001
    assert "runtime" not in kwargs and "cpuset_cpus" not in kwargs
    gvisor = DockerLimits(runtime="runsc", cpuset="0").create_kwargs()
    assert gvisor["runtime"] == "runsc" and gvisor["cpuset_cpus"] == "0"


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"pids": 0}, "pids is 0; it must be at least 16"),
        ({"cpus": 0}, "cpus is 0"),
        ({"memory_bytes": MIB}, "memory_bytes"),
        ({"uid": 0}, "uid is 0"),
        ({"uid_span": 0}, "uid_span is 0"),
        ({"uid": 60000, "uid_span": 8192}, "must stay below 65534"),
        ({"memory_bytes": 64 * MIB, "tmpfs_bytes": 64 * MIB}, "count against the memory cap"),
        ({"runtime": "runsc --evil"}, "not a runtime name"),
        ({"cpuset": "all"}, "must list CPUs"),
    ],
)
def test_bad_limits_are_refused_in_words(fields: dict[str, object], words: str) -> None:
    with pytest.raises(SandboxError, match=words):
        DockerLimits(**fields)  # type: ignore[arg-type]


def test_parse_size() -> None:
    assert parse_size("512m") == 512 * MIB and parse_size("1GiB") == GIB
    assert parse_size("4096") == 4096 and parse_size("64k") == 64 * 1024
    with pytest.raises(SandboxError, match="like 512m"):
        parse_size("lots")


def test_state_root_must_keep_socket_paths_short() -> None:
    with pytest.raises(SandboxError, match="too long"):
        DockerSandboxConfig(state_root=Path("/tmp/" + "d" * 80))
    with pytest.raises(SandboxError, match="absolute"):
        DockerSandboxConfig(state_root=Path("run/talon"))


def test_owner_label_names_a_live_process_only() -> None:
    assert owner_is_alive(owner_label())
    pid, _, start = owner_label().partition(":")
    assert not owner_is_alive(f"{pid}:{int(start) + 1}")  # same pid, other process
    assert not owner_is_alive("999999999:1") and not owner_is_alive("")


def test_apt_sources_both_formats(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text(
        "# comment\ndeb-src http://mirror.example/debian bookworm main\n"
        "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib\n"
    )
    (tmp_path / "sources.list.d" / "a.sources").write_text(
        "Types: deb\nURIs: http://second.example/debian\nSuites: trixie trixie-updates\n"
        "Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n\n"
        "Types: deb\nEnabled: no\nURIs: http://off.example/debian\nSuites: sid\n"
        "Components: main\n"
    )
    (tmp_path / "sources.list.d" / "b.sources.disabled").write_text(
        "Types: deb\nURIs: http://x.example\nSuites: sid\nComponents: main\n")
    sources = apt_sources.configured_sources(tmp_path)
    assert [(s.uri, s.suite) for s in sources] == [
        ("http://mirror.example/debian", "bookworm"),
        ("http://second.example/debian", "trixie"),
        ("http://second.example/debian", "trixie-updates"),
    ]
    assert sources[0].keyring == Path("/k.gpg") and sources[0].components == ("main", "contrib")
    picked = apt_sources.pick_source(sources, "trixie")
    assert picked.uri == "http://second.example/debian"
    with pytest.raises(SandboxError, match="no configured apt source serves suite 'sid'"):
        apt_sources.pick_source(sources, "sid")


def test_base_image_tag_follows_the_sdk_sources(tmp_path: Path) -> None:
    sdk = tmp_path / "sdk"
    shutil.copytree(REPO_ROOT / "sdk", sdk, ignore=shutil.ignore_patterns("*.egg-info"))
    recipe = BaseImageRecipe(suite="bookworm", sdk_dir=sdk, cache_dir=tmp_path / "cache")
    tag = recipe.tag()
    assert tag.startswith("talon/bot-base:") and tag == recipe.tag()
    (sdk / "talon_sdk" / "__pycache__").mkdir(exist_ok=True)
    (sdk / "talon_sdk" / "__pycache__" / "x.pyc").write_bytes(b"cache")
    assert recipe.tag() == tag  # caches do not count
    with open(sdk / "talon_sdk" / "bot.py", "a") as source:
        source.write("\n# changed\n")
    assert recipe.tag() != tag
    other_suite = BaseImageRecipe(suite="trixie", sdk_dir=sdk, cache_dir=tmp_path / "cache")
    assert other_suite.tag() != recipe.tag()


def test_bad_recipes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="Debian suite name"):
        BaseImageRecipe(suite="Bookworm; rm -rf /")
    with pytest.raises(SandboxError, match="must include python3"):
        BaseImageRecipe(suite="bookworm", packages=("bash",))
    with pytest.raises(SandboxError, match="no pyproject.toml"):
        BaseImageRecipe(suite="bookworm", sdk_dir=tmp_path)
    with pytest.raises(SandboxError, match="http"):
        BaseImageRecipe(suite="bookworm", mirror="ftp.example")


def test_missing_pieces_are_named(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["bot", "build", str(empty)])
    assert result.exit_code == 1 and "has no bot: put in it a bot.py" in result.output
    bad = CliRunner().invoke(main, ["bot", "new", "9 lives", "--dir", str(tmp_path)])
    assert bad.exit_code == 1 and "must start with a letter" in bad.output

"""Build Talon's bot base image with no container registry.

The Docker engine here starts with no images and cannot pull, but Debian's archive and PyPI
are reachable from the host. So the image is made on the host:

1. ``debootstrap --variant=minbase --include=python3`` into a cached folder (the slow step,
   about a minute; cached per suite and package list, so an SDK change skips it), slimmed
   (apt lists and caches, docs, man pages, locales) and given the non-root user ``bot``.
2. The SDK wheel (``pip wheel ./sdk``) and its dependencies' wheels for the *image's* Python
   (``pip download --only-binary=:all: --python-version X.Y --platform manylinux_...``) are
   fetched on the host and installed into a copy of that folder with ``pip install
   --target``: nothing inside the image ever touches the network. The image's own Python
   then compiles them to ``.pyc``, because the bot's root filesystem is read-only and a
   Python that cannot cache bytecode recompiles grpc on every start.
3. ``tar | docker import`` with ``USER bot``, tagged ``talon/bot-base:<digest>`` and
   ``talon/bot-base:latest``. The digest covers the recipe and every SDK source file, so a
   changed SDK gives a new tag and an unchanged one reuses the existing image.

Build artefacts live in a cache directory (``$TALON_CACHE_DIR``, else
``$XDG_CACHE_HOME/talon``, else ``~/.cache/talon``), never in the git tree; only the rootfs
folder stays there between builds. Each SDK version gets its own image (a full layer, about
140 MB): ``talon bot sweep --images`` removes those of older SDKs and the bots built on them.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import docker
import docker.errors

from referee.sandbox import apt_sources
from referee.sandbox.base import SandboxError

RECIPE_VERSION = "1"
"""Bump when the steps below change in a way that changes the image."""

BASE_REPOSITORY = "talon/bot-base"
LATEST_TAG = f"{BASE_REPOSITORY}:latest"
BOT_UID = 10001
BOT_USER = "bot"
BOT_WORKDIR = "/bot"
DEFAULT_PACKAGES = ("python3",)
REPO_ROOT = Path(__file__).resolve().parents[2]
_SKIP_NAMES = {"__pycache__", "build", "dist", ".mypy_cache", ".pytest_cache"}
_SLIM_GLOBS = (
    "var/cache/apt/*.bin",
    "var/cache/apt/archives/*.deb",
    "var/lib/apt/lists/*_*",
    "var/cache/debconf/*-old",
    "var/log/*.log",
    "var/log/apt/*",
    "usr/share/man/*",
    "usr/share/info/*",
    "usr/share/lintian/*",
    "usr/share/doc/*/*",  # each package's copyright file is kept (see _slim)
    "usr/share/locale/*",  # locale.alias is kept
)

Say = Callable[[str], None]


def default_cache_dir() -> Path:
    """Where rootfs folders and wheels are cached between builds (outside the git tree)."""
    if os.environ.get("TALON_CACHE_DIR"):
        return Path(os.environ["TALON_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "talon"


def sdk_source_digest(sdk_dir: Path) -> str:
    """Hash of every SDK source file (path and bytes), ignoring build and cache output."""
    digest = hashlib.sha256()
    files = sorted(
        path
        for path in sdk_dir.rglob("*")
        if path.is_file()
        and not any(part in _SKIP_NAMES or part.endswith(".egg-info") for part in path.parts)
        and path.suffix != ".pyc"
    )
    if not files:
        raise SandboxError(f"no SDK sources under {sdk_dir}: expected the talon_sdk project")
    for path in files:
        digest.update(str(path.relative_to(sdk_dir)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclasses.dataclass(frozen=True)
class BaseImageRecipe:
    """What goes into the base image; checked once when made."""

    suite: str
    mirror: str | None = None
    """Debian mirror URI; only building needs it (the tag does not depend on it)."""
    keyring: Path | None = None
    packages: tuple[str, ...] = DEFAULT_PACKAGES
    sdk_dir: Path = REPO_ROOT / "sdk"
    cache_dir: Path = dataclasses.field(default_factory=default_cache_dir)
    repository: str = BASE_REPOSITORY

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9.-]*", self.suite):
            raise SandboxError(f"suite {self.suite!r} is not a Debian suite name like 'bookworm'")
        if self.mirror is not None and not self.mirror.startswith(("http://", "https://", "file:/")):
            raise SandboxError(f"mirror {self.mirror!r} must be an http(s):// or file:/ URI")
        if "python3" not in self.packages:
            raise SandboxError(f"packages {self.packages} must include python3: bots are Python")
        if not (self.sdk_dir / "pyproject.toml").is_file():
            raise SandboxError(f"{self.sdk_dir} has no pyproject.toml: pass the SDK's directory")

    @classmethod
    def from_host(
        cls, suite: str | None = None, mirror: str | None = None, for_build: bool = True
    ) -> BaseImageRecipe:
        """The recipe for this machine: its Debian release, from the mirror apt uses here
        (looked up only ``for_build``: naming the image needs no mirror)."""
        suite = suite or apt_sources.host_codename()
        if mirror or not for_build:
            return cls(suite=suite, mirror=mirror)
        source = apt_sources.pick_source(apt_sources.configured_sources(), suite)
        return cls(suite=suite, mirror=source.uri, keyring=source.keyring)

    def rootfs_key(self) -> str:
        """Names the cached debootstrap folder; independent of the SDK and of the mirror."""
        text = json.dumps([RECIPE_VERSION, self.suite, sorted(self.packages), BOT_UID])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def tag(self) -> str:
        """``talon/bot-base:<digest>``: changes whenever the recipe or any SDK file changes."""
        text = self.rootfs_key() + sdk_source_digest(self.sdk_dir)
        return f"{self.repository}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


@dataclasses.dataclass(frozen=True)
class BuildReport:
    """What :func:`ensure_base_image` did, with its timings (seconds) and the image size."""

    tag: str
    image_id: str
    reused: bool
    size_bytes: int
    python_version: str = ""
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)

    def as_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2)


def _run(cmd: list[str], what: str, say: Say) -> str:
    """Run a build command; on failure raise with its last output lines and what failed."""
    say("  $ " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise SandboxError(f"{what} failed (exit {proc.returncode}):\n{tail}")
    return proc.stdout


@contextmanager
def _locked(cache_dir: Path) -> Iterator[None]:
    """One build at a time per cache directory (a test run and a CLI may race)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _slim(rootfs: Path) -> None:
    """Delete what a bot never needs: apt caches and lists, docs, man pages, locales."""
    for pattern in _SLIM_GLOBS:
        for path in rootfs.glob(pattern):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.name != "copyright" and path.name != "locale.alias":
                path.unlink()


def _debootstrap(recipe: BaseImageRecipe, say: Say) -> Path:
    """The cached, slimmed minbase root filesystem with Python and the ``bot`` user."""
    final = recipe.cache_dir / "rootfs" / recipe.rootfs_key()
    if (final / ".talon-complete").is_file():
        say(f"rootfs: reusing {final}")
        return final
    if recipe.mirror is None:
        raise SandboxError("building the base image needs a Debian mirror (BaseImageRecipe.mirror)")
    if shutil.which("debootstrap") is None:
        raise SandboxError("debootstrap is not installed: run scripts/install-system-deps")
    partial = final.with_name(final.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["debootstrap", "--variant=minbase", "--include=" + ",".join(recipe.packages)]
    if recipe.keyring is not None:
        cmd.append(f"--keyring={recipe.keyring}")
    cmd += [recipe.suite, str(partial), recipe.mirror]
    say(f"rootfs: debootstrap {recipe.suite} from the configured mirror")
    _run(cmd, "debootstrap", say)
    _run(
        ["chroot", str(partial), "useradd", "--uid", str(BOT_UID), "--user-group",
         "--no-create-home", "--home-dir", "/tmp", "--shell", "/usr/sbin/nologin", BOT_USER],
        "creating the bot user", say,
    )
    (partial / BOT_WORKDIR.lstrip("/")).mkdir(mode=0o755, exist_ok=True)
    _slim(partial)
    (partial / ".talon-complete").write_text(recipe.rootfs_key() + "\n")
    partial.rename(final)
    return final


def _image_python(rootfs: Path, say: Say) -> dict[str, str]:
    """Ask the image's own Python which wheels it can load (version, glibc, machine)."""
    code = (
        "import json,platform,sys;print(json.dumps({'version':'%d.%d'%sys.version_info[:2],"
        "'glibc':platform.libc_ver()[1],'machine':platform.machine()}))"
    )
    info: dict[str, str] = json.loads(
        _run(["chroot", str(rootfs), "python3", "-c", code], "asking the image's python", say)
    )
    return info


def _pip_platform_args(info: dict[str, str]) -> list[str]:
    """pip's cross-install options for the image's interpreter.

    pip does not widen an explicit ``manylinux_2_N`` platform to the older glibc tags the
    image also accepts, so every one down to ``manylinux2014`` (glibc 2.17) is listed."""
    major, minor = (int(part) for part in info["glibc"].split(".")[:2])
    arch = info["machine"]
    platforms = [f"manylinux_{major}_{m}_{arch}" for m in range(minor, 16, -1)]
    platforms.append(f"manylinux2014_{arch}")
    args = ["--only-binary=:all:", "--implementation", "cp", "--python-version", info["version"]]
    for platform in platforms:
        args += ["--platform", platform]
    return args


def _fetch_wheels(recipe: BaseImageRecipe, tag: str, info: dict[str, str], say: Say) -> Path:
    """The SDK wheel and its dependencies' binary wheels for the image, fetched on the host."""
    wheels = recipe.cache_dir / "wheels" / tag.split(":")[1]
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                str(recipe.sdk_dir)], "building the SDK wheel", say)
    built = list(wheels.glob("talon_sdk-*.whl"))
    if len(built) != 1:
        raise SandboxError(f"expected one talon_sdk wheel from {recipe.sdk_dir}, got {built}")
    sdk_wheel = built[0]
    _run(pip + ["download", "-d", str(wheels)] + _pip_platform_args(info) + [str(sdk_wheel)],
         "downloading the SDK's dependency wheels", say)
    return wheels


def _install_wheels(rootfs: Path, wheels: Path, info: dict[str, str], say: Say) -> None:
    """Install the wheels into the image's site-packages offline, then precompile them."""
    site = f"usr/local/lib/python{info['version']}/dist-packages"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run(pip + ["install", "--no-index", "--find-links", str(wheels), "--no-compile",
                "--target", str(rootfs / site)] + _pip_platform_args(info) + ["talon-sdk"],
         "installing the wheels into the image", say)
    _run(["chroot", str(rootfs), "python3", "-m", "compileall", "-q", "/" + site],
         "precompiling the wheels", say)


def _import(client: docker.DockerClient, rootfs: Path, tag: str, say: Say) -> str:
    """``tar | docker import`` with the bot user and working directory; returns the id."""
    tarball = rootfs.with_name(rootfs.name + ".tar")
    _run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tarball),
          "--exclude=./dev/*", "--exclude=./proc/*", "--exclude=./sys/*",
          "--exclude=./.talon-complete", "."], "packing the rootfs", say)
    repository, version = tag.split(":")
    changes = [
        f"USER {BOT_UID}:{BOT_UID}",
        f"WORKDIR {BOT_WORKDIR}",
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "ENV HOME=/tmp PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 LANG=C.UTF-8",
        'CMD ["python3", "bot.py"]',
    ]
    try:
        say(f"import: docker import as {tag}")
        client.api.import_image(src=str(tarball), repository=repository, tag=version,
                                changes=changes)
    finally:
        tarball.unlink(missing_ok=True)
    return str(client.images.get(tag).id)


def ensure_base_image(
    client: docker.DockerClient, recipe: BaseImageRecipe, say: Say = lambda _: None
) -> BuildReport:
    """Return the base image for ``recipe``, building it only if its tag does not exist yet.

    Either way ``talon/bot-base:latest`` is pointed at it, since bot Dockerfiles default to
    that tag."""
    tag = recipe.tag()
    with _locked(recipe.cache_dir):
        try:
            image = client.images.get(tag)
            image.tag(recipe.repository, "latest")
            say(f"base image {tag} exists: reused")
            return BuildReport(tag, str(image.id), True, int(image.attrs["Size"]))
        except docker.errors.ImageNotFound:
            pass
        seconds: dict[str, float] = {}
        start = time.monotonic()
        rootfs = _debootstrap(recipe, say)
        seconds["rootfs"] = time.monotonic() - start
        info = _image_python(rootfs, say)
        mark = time.monotonic()
        wheels = _fetch_wheels(recipe, tag, info, say)
        seconds["wheels"] = time.monotonic() - mark
        work = rootfs.with_name(f"work-{os.getpid()}")
        shutil.rmtree(work, ignore_errors=True)
        try:
            mark = time.monotonic()
            _run(["cp", "-a", "--reflink=auto", str(rootfs), str(work)], "copying the rootfs", say)
            _install_wheels(work, wheels, info, say)
            seconds["install"] = time.monotonic() - mark
            mark = time.monotonic()
            image_id = _import(client, work, tag, say)
            seconds["import"] = time.monotonic() - mark
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(wheels, ignore_errors=True)
        client.images.get(tag).tag(recipe.repository, "latest")
        seconds["total"] = time.monotonic() - start
        size = int(client.images.get(tag).attrs["Size"])
        say(f"built {tag} ({size / 2**20:.0f} MiB) in {seconds['total']:.0f} s")
        rounded = {key: round(value, 1) for key, value in seconds.items()}
        return BuildReport(tag, image_id, False, size, info["version"], rounded)


def main(argv: list[str] | None = None) -> int:
    """``scripts/build-base-image``: build (or reuse) the base image, print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--suite", help="Debian suite (default: this machine's release)")
    parser.add_argument("--mirror", help="Debian mirror URI (default: the one apt uses here)")
    parser.add_argument("--rebuild", action="store_true", help="remove the tag first")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("build-base-image: needs root (debootstrap and chroot)", file=sys.stderr)
        return 1
    try:
        recipe = BaseImageRecipe.from_host(args.suite, args.mirror)
        client = docker.from_env()
        if args.rebuild:
            for name in (recipe.tag(), LATEST_TAG):
                try:
                    client.images.remove(name)
                except docker.errors.ImageNotFound:
                    pass
        report = ensure_base_image(client, recipe, say=lambda line: print(line, file=sys.stderr))
    except (SandboxError, docker.errors.DockerException) as error:
        print(f"build-base-image: {error}", file=sys.stderr)
        return 1
    print(report.as_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())


def current_base_tag() -> str:
    """The base image tag for this machine's release and the SDK as it is in this checkout."""
    return BaseImageRecipe.from_host(for_build=False).tag()

"""Find the Debian archive this machine is configured to use, so that the bot base image is
built from the same mirror apt uses here (no host name is written into Talon's code).

Both apt formats are read: one-line ``deb URI SUITE COMPONENTS`` entries in
``sources.list`` and ``sources.list.d/*.list``, and deb822 stanzas in
``sources.list.d/*.sources``. Files with any other suffix are ignored, as apt ignores them
(that is how a source is disabled by renaming it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from referee.sandbox.base import SandboxError

ETC_APT = Path("/etc/apt")
OS_RELEASE = Path("/etc/os-release")


@dataclasses.dataclass(frozen=True)
class AptSource:
    """One ``deb`` entry: where packages of ``suite`` come from and which key signs them."""

    uri: str
    suite: str
    components: tuple[str, ...]
    keyring: Path | None = None
    """The ``Signed-By`` key file, when the entry names one (debootstrap checks with it)."""


def parse_one_line(text: str) -> list[AptSource]:
    """Parse ``sources.list`` syntax; ``deb-src`` lines and comments are skipped."""
    sources = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.startswith("deb "):
            continue
        keyring = None
        options = re.match(r"deb\s+\[([^\]]*)\]\s*", line)
        if options:
            for option in options.group(1).split():
                key, _, value = option.partition("=")
                if key == "signed-by":
                    keyring = Path(value)
            rest = line[options.end():].split()
        else:
            rest = line.split()[1:]
        if len(rest) >= 2:
            sources.append(AptSource(rest[0], rest[1], tuple(rest[2:]), keyring))
    return sources


def _stanzas(text: str) -> Iterator[dict[str, str]]:
    """Split deb822 text into field dicts (continuation lines folded in)."""
    fields: dict[str, str] = {}
    last = ""
    for raw in text.splitlines() + [""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if fields:
                yield fields
            fields, last = {}, ""
        elif raw[0] in " \t" and last:
            fields[last] += "\n" + raw.strip()
        else:
            key, _, value = raw.partition(":")
            last = key.strip().lower()
            fields[last] = value.strip()


def parse_deb822(text: str) -> list[AptSource]:
    """Parse ``*.sources`` stanzas; disabled (``Enabled: no``) and ``deb-src`` ones are skipped."""
    sources = []
    for fields in _stanzas(text):
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        signed_by = fields.get("signed-by", "")
        keyring = Path(signed_by) if signed_by.startswith("/") and "\n" not in signed_by else None
        components = tuple(fields.get("components", "").split())
        for uri in fields.get("uris", "").split():
            for suite in fields.get("suites", "").split():
                sources.append(AptSource(uri, suite, components, keyring))
    return sources


def configured_sources(etc_apt: Path = ETC_APT) -> list[AptSource]:
    """Every enabled ``deb`` source apt would use on this machine, in apt's file order."""
    sources = []
    main_list = etc_apt / "sources.list"
    if main_list.is_file():
        sources += parse_one_line(main_list.read_text(errors="replace"))
    parts = etc_apt / "sources.list.d"
    if parts.is_dir():
        for path in sorted(parts.iterdir()):
            if path.suffix == ".list":
                sources += parse_one_line(path.read_text(errors="replace"))
            elif path.suffix == ".sources":
                sources += parse_deb822(path.read_text(errors="replace"))
    return sources


def host_codename(os_release: Path = OS_RELEASE) -> str:
    """The Debian release this machine runs (``bookworm``), the default suite of the image."""
    if os_release.is_file():
        for line in os_release.read_text().splitlines():
            key, _, value = line.partition("=")
            if key == "VERSION_CODENAME" and value.strip('"'):
                return value.strip('"')
    raise SandboxError(
        f"cannot tell this machine's Debian release: no VERSION_CODENAME in {os_release}; "
        "pass the suite explicitly (e.g. --suite bookworm)"
    )


def pick_source(sources: list[AptSource], suite: str) -> AptSource:
    """The first source that serves ``suite`` with the ``main`` component."""
    for source in sources:
        if source.suite == suite and "main" in source.components:
            return source
    seen = ", ".join(sorted({f"{s.suite} ({' '.join(s.components)})" for s in sources})) or "none"
    raise SandboxError(
        f"no configured apt source serves suite {suite!r} with component 'main' "
        f"(suites configured: {seen}); add one to /etc/apt/sources.list.d or pass --mirror"
    )

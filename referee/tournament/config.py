"""The tournament configuration: one frozen, validated value that names a tournament.

Everything that decides *which games are played and how* lives here (game, rules, table size,
field, seed, deal groups, design, sandbox, runner options), so that a stored tournament can be
compared with a requested one before it is resumed: equal configs replay the same schedule,
with the same seeds, game for game. Things that only change *how fast* it runs (concurrency)
are deliberately not part of it.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

TABLE_SIZES: Mapping[str, tuple[int, int]] = {"crazy-eights": (2, 7), "crazy-rummy": (2, 6)}
"""The table sizes (players per match) each game allows, lowest and highest."""

MODES = ("round-robin", "gauntlet")
SANDBOXES = ("process", "docker")
MAX_SEED = 2**63 - 1
DEAL_KEY = re.compile(r"[0-9a-f]{32}")


class ConfigError(ValueError):
    """A tournament configuration that cannot be played; the message says what is allowed."""


def _plain(value: Any, what: str) -> Any:
    """``value`` as plain JSON data (so configs compare equal after a round trip), or raise."""
    try:
        return json.loads(json.dumps(value, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError) as err:
        raise ConfigError(f"{what}: {value!r} is not plain JSON data ({err})") from None


def _pairs(mapping: Mapping[str, Any] | Sequence[tuple[str, Any]], what: str) -> tuple[tuple[str, Any], ...]:
    items = mapping.items() if isinstance(mapping, Mapping) else mapping
    out: dict[str, Any] = {}
    for key, value in items:
        if not isinstance(key, str) or not key:
            raise ConfigError(f"{what}: keys must be non-empty strings, not {key!r}")
        out[key] = _plain(value, f"{what} {key!r}")
    return tuple(sorted(out.items()))


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """What to play. Build it with :meth:`make` (which validates and normalises).

    The field is a *set* of bot names: it is stored sorted, so the order bots are given in
    changes nothing (tables, seeds and results only depend on the names).
    """

    game: str
    """``crazy-eights`` or ``crazy-rummy``."""
    rules: str
    """The rules preset name."""
    table_size: int
    """Players per match (k)."""
    bots: tuple[str, ...]
    """The field, sorted."""
    seed: int
    """Tournament seed: every match seed derives from it (see :mod:`.schedule`)."""
    deal_groups: int
    """Deal groups per table: each is one deal played once per seat rotation."""
    mode: str = "round-robin"
    """``round-robin`` (every bot against every bot) or ``gauntlet`` (one bot against the field)."""
    challenger: str | None = None
    """The gauntlet's bot; ``None`` for a round robin."""
    tables: int | None = None
    """Tables to play: ``None`` plays every k-subset when there are at most
    :data:`~referee.tournament.schedule.MAX_FULL_TABLES`, else the smallest balanced design."""
    sandbox: str = "process"
    """Where bots run: ``process`` or ``docker``."""
    rule_overrides: tuple[tuple[str, Any], ...] = ()
    """Rule switches changed from the preset, sorted by name."""
    options: tuple[tuple[str, Any], ...] = ()
    """Runner settings that change results (time limits, bot digests...), sorted by name."""
    deal_key: str = ""
    """A secret mixed into every deal seed: 32 hex digits, or ``""`` for seeds derived from
    :attr:`seed` alone. Bots read the code that derives seeds and learn every match's seed
    when it ends; without a secret, a warm bot could find a small tournament seed by trying
    seeds until one deals the hand it holds, then compute every later deal. A new tournament
    store draws a key (:meth:`with_deal_key`) unless one is given; giving an earlier
    tournament's key replays its deals."""

    @classmethod
    def make(
        cls,
        *,
        game: str,
        rules: str,
        table_size: int,
        bots: Sequence[str],
        seed: int,
        deal_groups: int,
        mode: str = "round-robin",
        challenger: str | None = None,
        tables: int | None = None,
        sandbox: str = "process",
        rule_overrides: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
        options: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
        deal_key: str = "",
    ) -> TournamentConfig:
        """A validated config.

        :raises ConfigError: naming the bad value and what is allowed.
        """
        if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):  # "ab" would be bots a and b
            raise ConfigError(f"bots: {bots!r} is not allowed; give a list of bot names")
        config = cls(
            game=game,
            rules=rules,
            table_size=table_size,
            bots=tuple(sorted(bots)),
            seed=seed,
            deal_groups=deal_groups,
            mode=mode,
            challenger=challenger,
            tables=tables,
            sandbox=sandbox,
            rule_overrides=_pairs(rule_overrides, "rule override"),
            options=_pairs(options, "option"),
            deal_key=deal_key,
        )
        config.validate()
        return config

    def validate(self) -> None:
        """Raise :class:`ConfigError` unless this config can be scheduled."""
        if self.game not in TABLE_SIZES:
            raise ConfigError(f"game {self.game!r} is unknown; games are: {', '.join(TABLE_SIZES)}")
        if not isinstance(self.rules, str) or not self.rules:
            raise ConfigError(f"rules must name a preset, not {self.rules!r}")
        low, high = TABLE_SIZES[self.game]
        if not _is_int(self.table_size) or not low <= self.table_size <= high:
            raise ConfigError(
                f"table size {self.table_size!r} is not allowed for {self.game}; allowed: {low} to {high}"
            )
        _check_field(self.bots)
        if len(self.bots) < self.table_size:
            raise ConfigError(
                f"table size {self.table_size} needs at least {self.table_size} bots; "
                f"the field has {len(self.bots)}: {', '.join(self.bots) or '(none)'}"
            )
        if not _is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            raise ConfigError(f"seed {self.seed!r} is not allowed; allowed: an integer from 0 to 2**63-1")
        if not _is_int(self.deal_groups) or self.deal_groups < 1:
            raise ConfigError(f"deal groups {self.deal_groups!r} is not allowed; allowed: an integer from 1 up")
        self._check_mode()
        if self.tables is not None and (not _is_int(self.tables) or self.tables < 1):
            raise ConfigError(f"tables {self.tables!r} is not allowed; allowed: an integer from 1 up, or auto")
        if self.sandbox not in SANDBOXES:
            raise ConfigError(f"sandbox {self.sandbox!r} is unknown; sandboxes are: {', '.join(SANDBOXES)}")
        if self.deal_key and not (isinstance(self.deal_key, str) and DEAL_KEY.fullmatch(self.deal_key)):
            raise ConfigError(f"deal key {self.deal_key!r} is not allowed; allowed: 32 lowercase hex digits")

    def _check_mode(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"mode {self.mode!r} is unknown; modes are: {', '.join(MODES)}")
        if self.mode == "round-robin" and self.challenger is not None:
            raise ConfigError("a challenger is only allowed in gauntlet mode")
        if self.mode == "gauntlet" and self.challenger not in self.bots:
            raise ConfigError(
                f"gauntlet challenger {self.challenger!r} must be one of the bots: {', '.join(self.bots)}"
            )

    def with_deal_key(self) -> TournamentConfig:
        """This config, with a fresh random deal key if it has none."""
        return self if self.deal_key else dataclasses.replace(self, deal_key=secrets.token_hex(16))

    @property
    def field_size(self) -> int:
        return len(self.bots)

    def full_table_count(self) -> int:
        """How many tables a complete design has (every k-subset, or every gauntlet table)."""
        if self.mode == "gauntlet":
            return math.comb(len(self.bots) - 1, self.table_size - 1)
        return math.comb(len(self.bots), self.table_size)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; :meth:`from_json` turns it back into an equal config."""
        out = dataclasses.asdict(self)
        out["bots"] = list(self.bots)
        out["rule_overrides"] = dict(self.rule_overrides)
        out["options"] = dict(self.options)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentConfig:
        """The config ``data`` describes, validated.

        :raises ConfigError: for unknown or missing keys or bad values.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ConfigError(f"unknown config keys: {', '.join(unknown)}; keys are: {', '.join(sorted(names))}")
        try:
            return cls.make(**data)
        except TypeError as err:
            raise ConfigError(f"incomplete config: {err}") from None

    def differences(self, other: TournamentConfig) -> list[str]:
        """Human-readable lines naming each field where ``other`` differs from this config.
        An empty deal key in ``other`` asks for nothing (resuming keeps the stored key)."""
        mine, theirs = self.to_json(), other.to_json()
        return [
            f"{key}: {mine[key]!r} (stored) vs {theirs[key]!r} (requested)"
            for key in mine
            if mine[key] != theirs[key] and not (key == "deal_key" and not theirs[key])
        ]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_field(bots: Sequence[str]) -> None:
    for bot in bots:
        if not isinstance(bot, str) or not bot.strip() or bot != bot.strip():
            raise ConfigError(f"bot name {bot!r} is not allowed; names are non-empty, without outer spaces")
    dupes = sorted(name for name, count in collections.Counter(bots).items() if count > 1)
    if dupes:
        raise ConfigError(f"bot names must be unique; repeated: {', '.join(dupes)}")

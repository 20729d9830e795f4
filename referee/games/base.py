"""The one state contract every Talon game follows, and the rule-set machinery.

The contract (after OpenSpiel's ``State``), for a match of any game:

* A match is created from ``(game, rules, number of players, seed)`` by
  :func:`referee.games.new_match`. All randomness (shuffles, the first dealer) comes from one
  ``random.Random(seed)`` owned by the match, so a match is a pure function of
  ``(rules, seed, actions)``: replaying the same actions gives the same states, bit for bit.
* :attr:`MatchState.current_player` is the seat whose decision it is (``-1`` once the match is
  over). Only that seat may act; every decision is one explicit action.
* :meth:`MatchState.legal_actions` lists the actions of that seat, sorted, never empty while
  the match is not over. Where an action space cannot be listed in full (Crazy Rummy's table
  phase) it lists a canonical subset and :meth:`MatchState.apply` accepts every legal action.
* :meth:`MatchState.apply` plays an action; an illegal one raises :class:`IllegalActionError`
  whose message says why, in words a bot author understands, and leaves the state unchanged.
* :meth:`MatchState.view` is what one seat may know (spec section 2 rule 4): never another
  seat's cards, the order of the stock or the seed. Two states that differ only in hidden cards
  give equal views.
* :attr:`MatchState.events` lists public events: everything every seat may see, in order.
* The hand (deal) and the match end on their own; :attr:`MatchState.hand_scores` holds each
  finished hand's points per seat, :attr:`MatchState.scores` the cumulative totals, and
  :meth:`MatchState.standings` the final places (1 = first) with shared places for ties.

Actions are game-specific hashable, ordered values (``int`` for Crazy Eights, a tuple type for
Crazy Rummy); each game turns them to and from text (``action_name`` / ``parse_action``) and
JSON (``action_to_json`` / ``action_from_json``).
"""

from __future__ import annotations

import abc
import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

Action = Any
"""A game's action value; see the game's module docstring for its layout."""


class TalonGameError(Exception):
    """Base of the errors raised by the rules engines."""


class RulesError(TalonGameError, ValueError):
    """A rule set that names an unknown switch, a bad value or a bad combination."""


class IllegalActionError(TalonGameError, ValueError):
    """An action the rules forbid here. ``str(err)`` says why, for the bot's author."""

    def __init__(self, reason: str, action: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.action = action


@dataclasses.dataclass(frozen=True)
class Event:
    """One public event: every seat sees it. ``data`` holds JSON-ready values only."""

    kind: str
    seat: int
    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, **self.data}


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)``, cut to about ``limit`` characters: how an error quotes what a bot sent
    (a bot's 60 KB of text must not come back 60 KB long in every error)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


# --- rule sets ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Switch:
    """One rule switch: its name, default, allowed values and what it means.

    ``choices`` lists the allowed values for an enumerated switch; ``low``/``high`` bound an
    integer switch (``high=None``: no upper bound); ``special`` lists extra non-integer values
    an integer switch accepts (like ``"auto"``).
    """

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None
    special: tuple[str, ...] = ()

    def allowed(self) -> str:
        """The allowed values, in words."""
        if self.choices:
            return ", ".join(switch_text(c) for c in self.choices)
        bound = f"an integer from {self.low}" + (f" to {self.high}" if self.high is not None else " up")
        return " or ".join([bound, *self.special])

    def check(self, value: Any) -> Any:
        """Return ``value`` normalised, or raise :class:`RulesError` naming this switch."""
        if self.choices:
            for choice in self.choices:
                if value == choice and type(value) is type(choice):
                    return choice
                if isinstance(choice, str) and isinstance(value, str) and value.strip().lower() == choice.lower():
                    return choice  # 'q' for 'Q', 'ON' for 'on': a value is not its spelling
                if isinstance(choice, bool) and isinstance(value, str):
                    if value.lower() in (("on", "true", "yes") if choice else ("off", "false", "no")):
                        return choice
                if isinstance(choice, int) and not isinstance(choice, bool) and isinstance(value, str):
                    if value.strip() == str(choice):
                        return choice
            raise RulesError(f"switch {self.name!r}: {value!r} is not allowed; allowed: {self.allowed()}")
        if isinstance(value, str) and value in self.special:
            return value
        try:  # a bool is not a number here, nor a float with a fraction (no silent truncation)
            whole = not isinstance(value, bool) and not (isinstance(value, float) and not value.is_integer())
            number = int(value) if whole else None
        except (TypeError, ValueError, OverflowError):
            number = None
        if number is None or (self.low is not None and number < self.low) or (
            self.high is not None and number > self.high
        ):
            raise RulesError(f"switch {self.name!r}: {value!r} is not allowed; allowed: {self.allowed()}")
        return number

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "default": self.default, "help": self.help}
        if self.choices:
            out["choices"] = list(self.choices)
        else:
            out.update({"min": self.low, "max": self.high, "special": list(self.special)})
        return out


@dataclasses.dataclass(frozen=True)
class Shorthand:
    """A name the spec gives to a group of switches (``special_cards = pagat_typical``).

    Each value sets several switches at once; switches named beside it in the same overrides
    win over what it sets. A rule set never holds a shorthand: its overrides and replays name
    the switches it stands for.
    """

    name: str
    help: str
    values: Mapping[str, Mapping[str, Any]]

    def expand(self, value: Any) -> Mapping[str, Any]:
        key = switch_text(value).strip()
        if key not in self.values:
            raise RulesError(f"switch {self.name!r}: {value!r} is not allowed; allowed: {self.allowed()}")
        return self.values[key]

    def allowed(self) -> str:
        return ", ".join(self.values)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "help": self.help,
                "values": {k: dict(v) for k, v in self.values.items()}}


def switch_text(value: Any) -> str:
    """A switch value as it is written: ``on``/``off`` for a bool, else its text."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


R = TypeVar("R", bound="RuleSet")


@dataclasses.dataclass(frozen=True)
class RuleSet(abc.ABC):
    """Base of a game's frozen, validated rule set. Build one with :meth:`from_preset`.

    Subclasses declare ``SWITCHES`` (the switch table), ``PRESETS`` (name -> overrides of the
    switch defaults) and dataclass fields named like the switches, plus ``preset``.
    """

    SWITCHES: ClassVar[tuple[Switch, ...]] = ()
    SHORTHANDS: ClassVar[tuple[Shorthand, ...]] = ()
    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    PRESET_HELP: ClassVar[Mapping[str, str]] = {}
    GAME: ClassVar[str] = ""

    preset: str

    @classmethod
    def switch(cls, name: str) -> Switch:
        for sw in cls.SWITCHES:
            if sw.name == name:
                return sw
        names = ", ".join([s.name for s in cls.SWITCHES] + [s.name for s in cls.SHORTHANDS])
        raise RulesError(f"unknown switch {name!r} for {cls.GAME}; switches are: {names}")

    @classmethod
    def from_preset(cls: type[R], preset: str, overrides: Mapping[str, Any] | None = None) -> R:
        """The rule set of ``preset`` with ``overrides`` (switch name -> value) applied.

        :raises RulesError: for an unknown preset or switch, a bad value or combination.
        """
        preset = next((name for name in cls.PRESETS if name == str(preset).strip().lower()), preset)
        if preset not in cls.PRESETS:
            raise RulesError(
                f"unknown preset {preset!r} for {cls.GAME}; presets are: {', '.join(cls.PRESETS)}"
            )
        values: dict[str, Any] = {sw.name: sw.default for sw in cls.SWITCHES}
        values.update(cls.PRESETS[preset])
        shorthands = {sh.name: sh for sh in cls.SHORTHANDS}
        given = dict(overrides or {})
        for name in [n for n in given if n in shorthands]:  # first, so that switches beside them win
            values.update(shorthands[name].expand(given.pop(name)))
        for name, value in given.items():
            values[cls.switch(name).name] = value
        checked = {name: cls.switch(name).check(value) for name, value in values.items()}
        rules = cls(preset=preset, **checked)
        rules.validate()
        return rules

    def validate(self) -> None:
        """Check combinations of switches; raise :class:`RulesError` naming them."""

    def check_players(self, players: int) -> None:
        """Raise :class:`RulesError` unless ``players`` seats may play under these rules."""
        low, high = self.player_range()
        if not isinstance(players, int) or not low <= players <= high:
            raise RulesError(
                f"players: {players!r} is not allowed for {self.GAME} preset {self.preset!r}; "
                f"allowed: {low} to {high}"
            )

    @abc.abstractmethod
    def player_range(self) -> tuple[int, int]:
        """The least and most seats these rules allow."""

    def overrides(self) -> dict[str, Any]:
        """The switches that differ from the preset: with the preset, the whole rule set."""
        base = type(self).from_preset(self.preset)
        return {
            sw.name: getattr(self, sw.name)
            for sw in self.SWITCHES
            if getattr(self, sw.name) != getattr(base, sw.name)
        }

    def to_json(self) -> dict[str, Any]:
        return {"game": self.GAME, "preset": self.preset, "overrides": self.overrides()}

    def switches(self) -> dict[str, Any]:
        return {sw.name: getattr(self, sw.name) for sw in self.SWITCHES}


# --- the state contract ------------------------------------------------------------------------

RS = TypeVar("RS", bound=RuleSet)


class MatchState(abc.ABC, Generic[RS]):
    """A match in progress: see the module docstring for the contract."""

    __slots__ = ()

    game: ClassVar[str]
    rules: RS
    num_players: int
    seed: int

    @property
    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat to act, or -1 when the match is over."""

    @property
    def is_over(self) -> bool:
        return self.current_player < 0

    @abc.abstractmethod
    def legal_actions(self) -> Sequence[Action]:
        """The current player's legal actions, sorted; empty only when the match is over."""

    @abc.abstractmethod
    def apply(self, action: Action) -> None:
        """Play ``action`` for the current player or raise :class:`IllegalActionError`."""

    @abc.abstractmethod
    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know, as JSON-ready data (see the game's docs for the fields)."""

    @property
    @abc.abstractmethod
    def events(self) -> Sequence[Event]:
        """Public events so far."""

    def events_since(self, start: int) -> Sequence[Event]:
        """Public events from index ``start`` on: what a match loop forwards after a decision.

        Games override it so that it costs only the new events, not the whole match's."""
        return self.events[start:]

    def event_records_since(self, start: int) -> Sequence[tuple[str, int, Mapping[str, Any]]]:
        """:meth:`events_since` as plain ``(kind, seat, data)`` tuples, for the referee's hot path
        (it encodes a few events per decision and needs no :class:`Event` objects). The ``data``
        mappings may be the engine's own: read them, never change them."""
        return [(e.kind, e.seat, e.data) for e in self.events_since(start)]

    @property
    @abc.abstractmethod
    def history(self) -> Sequence[tuple[int, Action]]:
        """Every ``(seat, action)`` applied so far."""

    @property
    @abc.abstractmethod
    def hand_number(self) -> int:
        """1-based number of the current (or last) hand/deal."""

    @property
    @abc.abstractmethod
    def hand_scores(self) -> Sequence[Sequence[int]]:
        """Points of each finished hand, per seat."""

    @property
    @abc.abstractmethod
    def scores(self) -> Sequence[int]:
        """Cumulative match totals per seat."""

    @abc.abstractmethod
    def standings(self) -> list[int]:
        """Final place of each seat (1 = first; tied seats share a place)."""

    @abc.abstractmethod
    def clone(self) -> MatchState[RS]:
        """An independent copy (search bots simulate on clones)."""

    @abc.abstractmethod
    def action_name(self, action: Action) -> str: ...

    @abc.abstractmethod
    def parse_action(self, text: str) -> Action: ...

    @abc.abstractmethod
    def action_to_json(self, action: Action) -> Any: ...

    @abc.abstractmethod
    def action_from_json(self, data: Any) -> Action: ...

    @abc.abstractmethod
    def redeal_hidden(self, seat: int, rng: random.Random) -> None:
        """Deal anew, uniformly from ``rng``, every card ``seat`` cannot see (other hands and
        the stock), keeping each zone's size, and reseed the match's own generator from ``rng``.

        ``seat``'s view must not change. Used by the no-leak contract test and as the simplest
        determinization for search bots (which may then apply their own inferences).
        """

    @abc.abstractmethod
    def card_count(self) -> int:
        """Cards in every zone added up: constant over a match (card conservation)."""


class TupleEventLog:
    """Public events kept as plain ``(kind, seat, data)`` tuples on the hot path, and built
    into :class:`Event` objects only when read: the engines log an event per decision, and
    most readers (search bots, benchmarks) never look."""

    __slots__ = ()
    _events: list[tuple[str, int, dict[str, Any]]]

    @property
    def events(self) -> Sequence[Event]:
        return [Event(kind, seat, data) for kind, seat, data in self._events]

    def events_since(self, start: int) -> Sequence[Event]:
        return [Event(kind, seat, data) for kind, seat, data in self._events[start:]]

    def event_records_since(self, start: int) -> Sequence[tuple[str, int, Mapping[str, Any]]]:
        return self._events[start:]


def shared_places(totals: Sequence[float], lower_is_better: bool) -> list[int]:
    """Standard competition places (1, 1, 3, ...) of ``totals``: equal totals share a place."""
    key: Callable[[float], float] = (lambda t: t) if lower_is_better else (lambda t: -t)
    return [1 + sum(1 for other in totals if key(other) < key(mine)) for mine in totals]

"""Crazy Rummy rule sets: the switch table of spec section A.4 and the preset of section 1.

Why a switch table: sources disagree on many rules, and a match must say exactly which ones it
plays. A rule set is frozen and validated once; the state reads plain attributes from it.

Only the values the engine implements (and the tests cover) are allowed. Known variants from the
spec that Talon does not play yet are listed per switch in ``not_implemented`` and rejected with
a message that names them, so nobody mistakes them for typos.

Switches beyond the spec's defaults, with what the engine does:

* ``players``: ``3-6`` (the preset) or ``2-6`` (heads-up allowed; spec section 1).
* ``hand_size``: ``auto`` = 7, or 10 with two players (spec section 1); or any fixed 3..13.
  The first player always gets one card more.
* ``wild_sequence``: the wild rank of each deal, and so the number of deals (12 to 14).
* ``max_turns_per_deal``: ``auto`` = 40 x players (spec section 2 rule 5).
* ``value_scheme = beanie``: A-8 count 5, 9-K count 10, wilds count ``wild_value``;
  ``court_values`` and ``ace_value`` must then stay at their defaults.
* ``double_when_wild_in = 7_and_K``: every score of a deal where 7s or Kings are wild is doubled,
  the go-out bonus included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from referee.games.base import RuleSet, RulesError, Switch


@dataclasses.dataclass(frozen=True)
class RummySwitch(Switch):
    """A switch that also names the spec's variants Talon does not implement.

    ``not_implemented`` pairs a value with what it is, for the error message.
    """

    not_implemented: tuple[tuple[str, str], ...] = ()

    def check(self, value: Any) -> Any:
        key = ("on" if value else "off") if isinstance(value, bool) else str(value).strip().lower()
        for name, what in self.not_implemented:
            if key == name:
                raise RulesError(
                    f"switch {self.name!r}: {value!r} ({what}) is a known variant that Talon "
                    f"does not implement; allowed: {self.allowed()}"
                )
        return super().check(value)

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["not_implemented"] = [name for name, _ in self.not_implemented]
        return out


WILD_SEQUENCES: Mapping[str, tuple[int, ...]] = {
    "ace_to_king": tuple(range(1, 14)),
    "two_to_king": tuple(range(2, 14)),
    "two_to_king_then_ace": tuple(range(2, 14)) + (1,),
    "ace_to_king_then_ace": tuple(range(1, 14)) + (1,),
    "king_to_ace": tuple(range(13, 0, -1)),
}
"""The wild rank of deal 1, 2, ...: the sequence also fixes the number of deals."""

SWITCHES: tuple[RummySwitch, ...] = (
    RummySwitch("players", "3-6", "seats allowed: 3-6 (PG-CR) or 2-6 (heads-up, spec section 1)",
                choices=("3-6", "2-6"),
                not_implemented=(("up_to_12", "up to 12 players with two packs (Benny)"),)),
    RummySwitch("decks", 1, "packs shuffled together: 1 (PG-CR) or 2 (PG-CR variant)",
                choices=(1, 2)),
    RummySwitch("double_deck_set_max", 8,
                "largest set with two packs: 8, naturals may repeat (PG-CR var.), or 4 "
                "(Treize Brasses)", choices=(8, 4),
                not_implemented=(("unlimited_wilds", "no limit when the extra cards are wilds"),)),
    RummySwitch("hand_size", "auto",
                "cards dealt to each player (the first player gets one more); auto = 7, or 10 "
                "with 2 players", low=3, high=13, special=("auto",)),
    RummySwitch("wild_sequence", "ace_to_king",
                "the wild rank of each deal; the length fixes the number of deals",
                choices=tuple(WILD_SEQUENCES),
                not_implemented=(("dealer_choice", "the dealer names the rank (Oxner)"),
                                 ("joker", "a joker always wild (PG-CR var.)"))),
    RummySwitch("ace_in_runs", "low", "low only (PG-CR) or high_or_low, no wrap-around (Biddies)",
                choices=("low", "high_or_low")),
    RummySwitch("first_player", "left_of_dealer",
                "who gets the extra card and plays first: left_of_dealer (PG-CR) or dealer",
                choices=("left_of_dealer", "dealer")),
    RummySwitch("first_turn_meld", "allowed",
                "may the first player meld on the first turn: allowed (PG-CR) or discard_only",
                choices=("allowed", "discard_only")),
    RummySwitch("no_meld_until_round_complete", False,
                "on: nobody melds until play returns to the first player (Beanie)",
                choices=(False, True)),
    RummySwitch("first_turn_go_out", "ends_deal",
                "going out in the first round: ends_deal (PG-CR), or full_turn: the players who "
                "have not had a turn yet each play one, then the deal ends (Benny)",
                choices=("ends_deal", "full_turn"),
                not_implemented=(("meld_chance", "later players may still meld (Beanie)"),)),
    RummySwitch("reclaimed_wild_must_be_used", False,
                "on: a wild taken by exchange must go back on the table at once (PG-CR var.)",
                choices=(False, True)),
    RummySwitch("may_discard_card_just_taken", True,
                "may a player discard the card just taken from the discard pile (ENGINE)",
                choices=(True, False)),
    RummySwitch("discard_take_must_meld", False,
                "on: the card taken from the discard pile must go on the table at once "
                "(Treize Brasses)", choices=(False, True)),
    RummySwitch("one_card_rule", True,
                "the special turn of a player holding one card (PG-CR, GR-CR)",
                choices=(True, False)),
    RummySwitch("stock_exhausted", "end_deal",
                "when the last stock card is drawn: end_deal (PG-CR), reshuffle the discard pile "
                "but its top card (PG-CR var.), or turn_over the pile without shuffling (Benny)",
                choices=("end_deal", "reshuffle", "turn_over"),
                not_implemented=(("take_or_end", "play on by taking discards (Beanie)"),)),
    RummySwitch("max_turns_per_deal", "auto", "stall guard: auto = 40 x players (ENGINE)",
                low=1, special=("auto",)),
    RummySwitch("stall_resolution", "score",
                "a stalled deal is scored (ENGINE) or void (Benny)", choices=("score", "void")),
    RummySwitch("allow_all_wild_melds", True, "may a meld be all wild cards (PG-CR)",
                choices=(True, False)),
    RummySwitch("wild_value", 25, "points of a wild left in hand", choices=(25, 20, 15)),
    RummySwitch("court_values", "ten", "J, Q, K: ten = 10 each (PG-CR) or by_rank = 11/12/13",
                choices=("ten", "by_rank")),
    RummySwitch("ace_value", 1, "points of an Ace left in hand: 1 (PG-CR) or 10 (Biddies)",
                choices=(1, 10)),
    RummySwitch("value_scheme", "standard",
                "standard, or beanie: A-8 count 5, 9-K count 10, wilds wild_value",
                choices=("standard", "beanie")),
    RummySwitch("go_out_bonus", 0, "points for going out: 0 (PG-CR) or -15 (PG-CR var.)",
                choices=(0, -15)),
    RummySwitch("double_when_wild_in", "none",
                "double every score of deals where these ranks are wild", choices=("none", "7_and_K")),
    RummySwitch("press", False, "the Press (PG-CR var.)", choices=(False,),
                not_implemented=(("on", "the Press and Auto-Press"),)),
    RummySwitch("seven_card_run_reset", False, "Benny's 7-card run reset", choices=(False,),
                not_implemented=(("on", "a 7-card run from hand resets the total to 0"),)),
    RummySwitch("up_for_two", False, "Biddies' up for two", choices=(False,),
                not_implemented=(("on", "a last non-wild 2 may end the play"),)),
    RummySwitch("declare_four_wilds", False, "Benny's four-wilds announcement", choices=(False,),
                not_implemented=(("on", "a player holding all four wilds must announce it"),)),
    RummySwitch("tie_policy", "shared",
                "shared places (ENGINE), or deals_won_then_worst_deal: more deals won first, then "
                "the lower worst single deal, then shared",
                choices=("shared", "deals_won_then_worst_deal"),
                not_implemented=(("extra_deal", "play one extra deal with Aces wild"),)),
)


@dataclasses.dataclass(frozen=True)
class CrazyRummyRules(RuleSet):
    """A validated Crazy Rummy rule set: one attribute per switch (see :data:`SWITCHES`)."""

    SWITCHES: ClassVar[tuple[Switch, ...]] = SWITCHES
    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {"standard": {}}
    PRESET_HELP: ClassVar[Mapping[str, str]] = {
        "standard": "PG-CR basic rules: 3-6 players, one pack, 13 deals with Aces..Kings wild, "
                    "7 cards (8 to the first player), lowest total wins",
    }
    GAME: ClassVar[str] = "crazy-rummy"

    players: str
    decks: int
    double_deck_set_max: int
    hand_size: int | str
    wild_sequence: str
    ace_in_runs: str
    first_player: str
    first_turn_meld: str
    no_meld_until_round_complete: bool
    first_turn_go_out: str
    reclaimed_wild_must_be_used: bool
    may_discard_card_just_taken: bool
    discard_take_must_meld: bool
    one_card_rule: bool
    stock_exhausted: str
    max_turns_per_deal: int | str
    stall_resolution: str
    allow_all_wild_melds: bool
    wild_value: int
    court_values: str
    ace_value: int
    value_scheme: str
    go_out_bonus: int
    double_when_wild_in: str
    press: bool
    seven_card_run_reset: bool
    up_for_two: bool
    declare_four_wilds: bool
    tie_policy: str

    def validate(self) -> None:
        if self.value_scheme == "beanie" and (self.court_values != "ten" or self.ace_value != 1):
            raise RulesError(
                "value_scheme 'beanie' fixes every card's value: leave court_values at 'ten' and "
                "ace_value at 1"
            )
        if self.decks == 1 and self.double_deck_set_max != 8:
            raise RulesError("double_deck_set_max only applies with decks = 2")

    def player_range(self) -> tuple[int, int]:
        return (2, 6) if self.players == "2-6" else (3, 6)

    def check_players(self, players: int) -> None:
        """The seat range, then whether the deal fits in the pack with a stock left over."""
        low, high = self.player_range()
        if isinstance(players, int) and players == 2 and low == 3:
            raise RulesError(
                f"players: 2 is not allowed for {self.GAME} preset {self.preset!r} with "
                f"players = '3-6'; set the switch players = '2-6' for heads-up play"
            )
        super().check_players(players)
        needed = players * self.cards_per_hand(players) + 2
        if needed > self.pack_size:
            raise RulesError(
                f"hand_size {self.cards_per_hand(players)} with {players} players needs {needed} "
                f"cards (the deal, the first player's extra card and a stock card) but "
                f"{self.decks} pack(s) hold {self.pack_size}"
            )

    # --- derived values the state reads ----------------------------------------------------

    @property
    def pack_size(self) -> int:
        return 52 * self.decks

    @property
    def wild_ranks(self) -> tuple[int, ...]:
        """The wild rank of each deal, in order."""
        return WILD_SEQUENCES[self.wild_sequence]

    @property
    def num_deals(self) -> int:
        return len(self.wild_ranks)

    @property
    def set_max(self) -> int:
        """The largest set: 4 with one pack; 8 or 4 with two."""
        return 4 if self.decks == 1 else self.double_deck_set_max

    def cards_per_hand(self, players: int) -> int:
        if self.hand_size == "auto":
            return 10 if players == 2 else 7
        return int(self.hand_size)

    def turn_limit(self, players: int) -> int:
        if self.max_turns_per_deal == "auto":
            return 40 * players
        return int(self.max_turns_per_deal)

    def card_value(self, card: int, wild_rank: int) -> int:
        """Points of ``card`` left in hand in a deal where ``wild_rank`` is wild (rule 21)."""
        rank = card % 13 + 1
        if rank == wild_rank:
            return self.wild_value
        if self.value_scheme == "beanie":
            return 5 if rank <= 8 else 10
        if rank == 1:
            return self.ace_value
        if rank > 10:
            return rank if self.court_values == "by_rank" else 10
        return rank

    def deal_multiplier(self, wild_rank: int) -> int:
        if self.double_when_wild_in == "7_and_K" and wild_rank in (7, 13):
            return 2
        return 1

"""Crazy Eights rule sets: every switch of spec sections B.2-B.5 and the presets of section 1.

A rule set is one frozen, validated object: a preset name plus overrides
(``CrazyEightsRules.from_preset("house", {"match_target": 500})``). Unknown switches, bad
values and bad combinations are rejected with a message naming the switch and what is allowed.

Ranks are written as in card names (``"A"``, ``"2"``, ``"Q"``...) and stored as ints 1..13
(0 = the special is off).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from referee.games.base import RuleSet, RulesError, Shorthand, Switch

_RANKS = {"none": 0, "A": 1, "2": 2, "4": 4, "7": 7, "8": 8, "J": 11, "Q": 12}
_RANK_TEXT = {v: k for k, v in _RANKS.items()}

SWITCHES: tuple[Switch, ...] = (
    Switch("players", "2-8", "seats allowed: 2-8 (PG-C8) or 2-7 (WP-C8, house)", choices=("2-8", "2-7")),
    Switch("decks", "auto", "packs: auto = 1, or 2 from `two_decks_from` players", choices=("auto", 1, 2)),
    Switch("two_decks_from", 6, "with decks = auto, the player count from which 2 packs are used", low=3, high=9),
    Switch("initial_hand_size", "auto", "cards dealt: auto = 7 with 2 players, else 5", choices=("auto", 5, 7, 8)),
    Switch("dealer", "random", "first dealer: random seat, or low_card (one card each, lowest deals, ties redeal)", choices=("random", "low_card")),
    Switch("next_dealer", "rotate", "later dealers: rotate clockwise, or the previous hand's winner", choices=("rotate", "winner")),
    Switch("upcard_eight", "dealer_names", "an 8 (wild) as first upcard: the dealer names a suit, or it is buried mid-stock and the next card turned", choices=("dealer_names", "bury_and_redraw")),
    Switch("draw_mode", "one_then_end", "what a draw does: see spec B.2 rule 13", choices=("one_then_end", "one_may_play", "up_to_n", "until_playable")),
    Switch("draw_limit", 3, "with draw_mode = up_to_n: the most cards drawn in one turn", low=1, high=20),
    Switch("may_draw_when_able_to_play", True, "off: a player who can play must play", choices=(True, False)),
    Switch("stock_empty", "reshuffle", "when a card must be drawn from an empty stock: reshuffle the pile under its top card, pass, or end the hand at the end of the turn that drew the last card", choices=("reshuffle", "pass", "end_hand")),
    Switch("last_card_penalty", 2, "cards drawn for not announcing 'last card' (0 = no such rule)", choices=(0, 2, 4)),
    Switch("reveal_last_eight", False, "a player whose last card is the wild rank must say so (a public event)", choices=(True, False)),
    Switch("must_finish_on_eight", False, "a hand may only be won by playing the wild rank", choices=(True, False)),
    Switch("suit_changer_rank", "8", "the wild rank that is played on anything and names a suit", choices=("8", "A", "J", "7")),
    Switch("eight_must_match", False, "the wild card must itself follow rank or suit", choices=(True, False)),
    Switch("eight_names_suit", "on", "on: a wild names a suit; optional: naming none keeps its own suit; off: the next player follows its own suit; only_if_matching: another suit may be named only when it followed the top card", choices=("on", "optional", "off", "only_if_matching")),
    Switch("skip_rank", "none", "rank that skips the next player", choices=("none", "Q", "J", "A")),
    Switch("reverse_rank", "none", "rank that reverses the direction", choices=("none", "A", "4", "J")),
    Switch("reverse_two_players", "no_effect", "a reverse with 2 players: no effect, or acts as a skip", choices=("no_effect", "skip")),
    Switch("draw_two_rank", "none", "rank that makes the next player draw two", choices=("none", "2", "Q")),
    Switch("draw_two_stacking", True, "on: the target may answer with the same rank and the chain grows by 2; off: the target draws 2 at once and loses the turn", choices=(True, False)),
    Switch("queen_of_spades_draw", 0, "cards the next player draws when QS is played (then loses the turn)", choices=(0, 5)),
    Switch("multi_card_play", "off", "several cards of equal rank in one turn: off, on, or only the skip rank", choices=("off", "on", "skip_rank_only")),
    Switch("scoring_mode", "penalty", "penalty: each adds their own hand; winner_collects: the winner collects the others' hands", choices=("penalty", "winner_collects")),
    Switch("match_end", "threshold", "threshold: the match ends once a total reaches match_target; hands: after match_hands hands", choices=("threshold", "hands")),
    Switch("match_target", 100, "the total that ends the match (or 50xN: 50 times the number of players)", low=1, special=("50xN",)),
    Switch("match_hands", 1, "with match_end = hands: how many hands", low=1, high=100),
    Switch("tie_policy", "shared", "tied best totals: share the place, or play extra hands (up to max_extra_hands)", choices=("shared", "extra_hands")),
    Switch("max_extra_hands", 5, "with tie_policy = extra_hands: the most extra hands before the tie is shared", low=1, high=50),
    Switch("variant", "standard", "standard, or countdown (spec B.4)", choices=("standard", "countdown")),
    Switch("countdown_mode", "per_round", "countdown: per_round redeals everyone; continuous deals a new hand at once", choices=("per_round", "continuous")),
    Switch("countdown_start", 8, "countdown: the personal score (and wild rank) everyone starts on", low=1, high=13),
    Switch("same_rank_on_wild", False, "a card of the same rank as the wild just played may follow it (countdown; standard 8 on 8 is always allowed)", choices=(True, False)),
    Switch("max_turns_per_hand", "auto", "loop guard: a hand reaching this many turns is blocked (auto = 100 x players)", low=10, special=("auto",)),
    Switch("max_hands", 200, "loop guard: a match ends after this many hands whatever the scores", low=1, high=10000),
)

SHORTHANDS: tuple[Shorthand, ...] = (
    Shorthand("special_cards", "the spec's special-card sets (B.3, B.5): none, or pagat_typical = Q skips, "
              "A reverses, 2 draws two with stacking; the rank switches beside it win",
              {"none": {"skip_rank": "none", "reverse_rank": "none", "draw_two_rank": "none"},
               "pagat_typical": {"skip_rank": "Q", "reverse_rank": "A", "draw_two_rank": "2",
                                 "draw_two_stacking": True}}),
)

PRESETS: Mapping[str, Mapping[str, Any]] = {
    "classic": {
        "decks": "auto", "two_decks_from": 6, "upcard_eight": "bury_and_redraw",
        "draw_mode": "until_playable", "may_draw_when_able_to_play": True,
        "stock_empty": "reshuffle", "last_card_penalty": 0, "scoring_mode": "winner_collects",
        "match_end": "threshold", "match_target": "50xN",
    },
    "house": {
        "players": "2-7", "two_decks_from": 6, "dealer": "low_card", "next_dealer": "winner",
        "upcard_eight": "bury_and_redraw", "draw_mode": "one_may_play",
        "may_draw_when_able_to_play": False, "stock_empty": "pass", "skip_rank": "A",
        "multi_card_play": "skip_rank_only", "reverse_rank": "J", "reverse_two_players": "skip",
        "draw_two_rank": "Q", "draw_two_stacking": False, "last_card_penalty": 2,
        "eight_names_suit": "optional", "scoring_mode": "winner_collects",
        "match_end": "threshold", "match_target": 200,
    },
    "pagat": {
        "draw_mode": "one_then_end", "stock_empty": "reshuffle", "scoring_mode": "penalty",
        "match_end": "threshold", "match_target": 100,
    },
    "specials": {
        "decks": "auto", "two_decks_from": 6, "upcard_eight": "bury_and_redraw",
        "draw_mode": "until_playable", "may_draw_when_able_to_play": True,
        "stock_empty": "reshuffle", "last_card_penalty": 0, "scoring_mode": "winner_collects",
        "match_end": "threshold", "match_target": "50xN",
        "skip_rank": "Q", "reverse_rank": "A", "draw_two_rank": "2", "draw_two_stacking": True,
    },
    "countdown": {
        "variant": "countdown", "countdown_mode": "per_round", "initial_hand_size": 8,
        "draw_mode": "one_then_end", "stock_empty": "reshuffle",
    },
    "french": {
        "initial_hand_size": 5, "upcard_eight": "bury_and_redraw", "draw_mode": "up_to_n",
        "draw_limit": 3, "may_draw_when_able_to_play": False, "stock_empty": "end_hand",
        "last_card_penalty": 0, "scoring_mode": "penalty", "match_end": "hands",
        "match_hands": 5,
    },
}

PRESET_HELP: Mapping[str, str] = {
    "classic": "seed 001 basic play: draw until playable, wild 8, winner collects, to 50 x players",
    "house": "seed 000: A skips, J reverses, Q draws two, last-card rule, winner deals, to 200",
    "pagat": "pagat.com basic game: play or draw one, penalty points, to 100",
    "specials": "classic plus Q skip, A reverse, 2 draw-two with stacking",
    "countdown": "Crazy Eights Countdown: personal wild rank = personal score, first to 0",
    "french": "seed 004: 5 cards, draw up to 3, the hand ends when the stock runs out, 5 hands",
}


@dataclasses.dataclass(frozen=True)
class CrazyEightsRules(RuleSet):
    """A validated Crazy Eights rule set (see :data:`SWITCHES` for every field's meaning)."""

    SWITCHES: ClassVar[tuple[Switch, ...]] = SWITCHES
    SHORTHANDS: ClassVar[tuple[Shorthand, ...]] = SHORTHANDS
    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = PRESETS
    PRESET_HELP: ClassVar[Mapping[str, str]] = PRESET_HELP
    GAME: ClassVar[str] = "crazy-eights"

    players: str = "2-8"
    decks: Any = "auto"
    two_decks_from: int = 6
    initial_hand_size: Any = "auto"
    dealer: str = "random"
    next_dealer: str = "rotate"
    upcard_eight: str = "dealer_names"
    draw_mode: str = "one_then_end"
    draw_limit: int = 3
    may_draw_when_able_to_play: bool = True
    stock_empty: str = "reshuffle"
    last_card_penalty: int = 2
    reveal_last_eight: bool = False
    must_finish_on_eight: bool = False
    suit_changer_rank: str = "8"
    eight_must_match: bool = False
    eight_names_suit: str = "on"
    skip_rank: str = "none"
    reverse_rank: str = "none"
    reverse_two_players: str = "no_effect"
    draw_two_rank: str = "none"
    draw_two_stacking: bool = True
    queen_of_spades_draw: int = 0
    multi_card_play: str = "off"
    scoring_mode: str = "penalty"
    match_end: str = "threshold"
    match_target: Any = 100
    match_hands: int = 1
    tie_policy: str = "shared"
    max_extra_hands: int = 5
    variant: str = "standard"
    countdown_mode: str = "per_round"
    countdown_start: int = 8
    same_rank_on_wild: bool = False
    max_turns_per_hand: Any = "auto"
    max_hands: int = 200

    def validate(self) -> None:
        specials = {
            "skip_rank": self.skip_rank, "reverse_rank": self.reverse_rank,
            "draw_two_rank": self.draw_two_rank, "suit_changer_rank": self.suit_changer_rank,
        }
        used = [(k, v) for k, v in specials.items() if v != "none"]
        for i, (name, rank) in enumerate(used):
            for other, other_rank in used[i + 1:]:
                if rank == other_rank:
                    raise RulesError(
                        f"switches {name!r} and {other!r} both use rank {rank}: "
                        "each special effect needs its own rank"
                    )
        if self.multi_card_play == "skip_rank_only" and self.skip_rank == "none":
            raise RulesError(
                "switch 'multi_card_play': skip_rank_only needs a skip rank; set 'skip_rank' "
                "(Q, J or A) or use multi_card_play = off or on"
            )
        if self.variant == "countdown" and self.match_end != "threshold":
            raise RulesError(
                "switch 'match_end': countdown ends when a personal score reaches 0; "
                "leave match_end = threshold with variant = countdown"
            )
        if self.variant == "countdown" and self.stock_empty == "end_hand":
            raise RulesError(
                "switch 'stock_empty': end_hand is not allowed with variant = countdown; "
                "allowed: reshuffle, pass"
            )

    def player_range(self) -> tuple[int, int]:
        return 2, 7 if self.players == "2-7" else 8

    def check_players(self, players: int) -> None:
        if isinstance(players, int) and players == 8 and self.players == "2-7":
            raise RulesError(f"players: 8 is not allowed for {self.GAME} preset {self.preset!r}; allowed: 2 to 7 "
                             "(players = '2-7'); set the switch players = '2-8' for eight seats")
        super().check_players(players)

    # --- derived values (computed once per match by the state) ---------------------------

    def rank_of(self, switch: str) -> int:
        """The rank (1..13) a special-card switch names, 0 when that special is off."""
        return _RANKS[str(getattr(self, switch))]

    def decks_for(self, players: int) -> int:
        if self.decks == "auto":
            return 2 if players >= self.two_decks_from else 1
        return int(self.decks)

    def hand_size_for(self, players: int) -> int:
        if self.initial_hand_size == "auto":
            return 7 if players == 2 else 5
        return int(self.initial_hand_size)

    def target_for(self, players: int) -> int:
        return 50 * players if self.match_target == "50xN" else int(self.match_target)

    def turn_guard_for(self, players: int) -> int:
        return 100 * players if self.max_turns_per_hand == "auto" else int(self.max_turns_per_hand)


def rank_text(rank: int) -> str:
    """How a special rank is written in switches (``0`` -> ``"none"``)."""
    return _RANK_TEXT.get(rank, str(rank))

"""The table of a Crazy Eights match: its fields, the deal, drawing and the end of a hand.

:class:`Table` holds the state and the hand lifecycle; :class:`~.state.CrazyEightsState` adds
the turn rules and the public contract on top. Split so each module stays readable.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any, Self

from referee.cards import (
    NUM_CARDS, card_name, card_rank, card_suit, mask_add, mask_cards, mask_from_cards,
    shuffle, shuffled_pack, suit_name,
)
from referee.games.base import RulesError, TupleEventLog
from referee.games.crazy_eights import actions as A
from referee.games.crazy_eights.rules import CrazyEightsRules

FULL = (1 << NUM_CARDS) - 1
QS = 3 * 13 + 11  # queen of spades
CARD_NAMES = tuple(card_name(c) for c in range(NUM_CARDS))
_PLAY_NO_SUIT = tuple(A.play_action(c) for c in range(NUM_CARDS))

# phases
P_PLAY, P_NAME_SUIT, P_DRAW_TWO, P_AFTER_DRAW, P_MULTI, P_OVER = range(6)
PHASE_NAMES = ("play", "name_suit", "draw_two", "after_draw", "multi_play", "over")


def card_value(card: int, wild_rank: int) -> int:
    """Points of ``card`` left in a hand (the suit-changer rank scores 50)."""
    rank = card % 13 + 1
    if rank == wild_rank:
        return 50
    return 10 if rank >= 10 else rank


class Table(TupleEventLog, abc.ABC):
    """The fields of a match and its hand lifecycle (see the module docstring)."""

    __slots__ = (
        "rules", "num_players", "seed", "_rng", "_wild", "_skip", "_rev", "_d2", "_qs",
        "_multi", "_decks", "_guard", "_target", "_hands", "_stock", "_pile", "_top",
        "_follow", "_top_wild", "_dir", "_cur", "_dealer", "_phase", "_pending", "_drawn",
        "_drawn_card", "_passes", "_turns", "_hand_no", "_hand_scores", "_scores",
        "_personal", "_announced", "_fx", "_end_pending", "_extra", "_events", "_history",
        "_legal", "_places", "_base", "_wr", "_mode", "_may_draw", "_limit", "_specials",
    )

    rules: CrazyEightsRules
    num_players: int
    seed: int
    _rng: random.Random
    _wild: int
    _skip: int
    _rev: int
    _d2: int
    _qs: int
    _multi: int
    _decks: int
    _guard: int
    _target: int
    _hands: list[int]
    _stock: list[int]
    _pile: list[int]
    _top: int
    _follow: int
    _top_wild: bool
    _dir: int
    _cur: int
    _dealer: int
    _phase: int
    _pending: int
    _drawn: int
    _drawn_card: int
    _passes: int
    _turns: int
    _hand_no: int
    _hand_scores: list[list[int]]
    _scores: list[int]
    _personal: list[int]
    _announced: int
    _fx: list[int]
    _end_pending: bool
    _extra: int
    _events: list[tuple[str, int, dict[str, Any]]]
    _history: list[tuple[int, int]]
    _legal: tuple[int, ...] | None
    _places: list[int]
    _base: list[int]
    _wr: list[int]
    _mode: str
    _may_draw: bool
    _limit: int
    _specials: bool

    def __init__(self, rules: CrazyEightsRules, players: int, seed: int) -> None:
        """Deal the first hand of a new match (see :func:`referee.games.new_match`)."""
        rules.check_players(players)
        self.rules = rules
        self.num_players = players
        self.seed = seed
        self._rng = random.Random(seed)
        self._wild = rules.rank_of("suit_changer_rank")
        self._skip = rules.rank_of("skip_rank")
        self._rev = rules.rank_of("reverse_rank")
        self._d2 = rules.rank_of("draw_two_rank")
        self._qs = rules.queen_of_spades_draw
        self._specials = bool(self._skip or self._rev or self._d2 or self._qs)
        self._multi = {"off": 0, "on": -1, "skip_rank_only": self._skip}[rules.multi_card_play]
        self._decks = rules.decks_for(players)
        self._mode = rules.draw_mode
        self._may_draw = rules.may_draw_when_able_to_play
        self._limit = rules.draw_limit if rules.draw_mode == "up_to_n" else (1 << 30)
        self._guard = rules.turn_guard_for(players)
        self._target = rules.target_for(players)
        self._hand_scores = []
        self._scores = [0] * players
        countdown = rules.variant == "countdown"
        self._personal = [rules.countdown_start] * players if countdown else []
        self._extra = 0
        self._events = []
        self._history = []
        self._places = []
        self._hand_no = 0
        self._fx = [0, 0, 0, 0]  # skips, reverses, draw-two cards, forced draw
        size = self._hand_size(0) * players + 1
        if size > NUM_CARDS * self._decks:
            fix = ("set 'decks' to 2" if self._decks == 1 else
                   "two packs are the most: seat fewer players or deal fewer cards ("
                   + ("countdown_start" if rules.variant == "countdown" else "initial_hand_size") + ")")
            raise RulesError(f"{players} players with {self._hand_size(0)} cards each need more "
                             f"than {self._decks} pack(s); {fix}")
        self._dealer = self._first_dealer()
        self._deal()

    @property
    def hand_number(self) -> int:
        return self._hand_no


    @property
    def scores(self) -> Sequence[int]:
        return self._personal if self._personal else self._scores


    def _add_effects(self, card: int) -> None:
        rank = card % 13 + 1
        fx = self._fx
        if rank == self._skip:
            fx[0] += 1
        if rank == self._rev:
            fx[1] += 1
        if rank == self._d2:
            fx[2] += 2
        if card == QS and self._qs:
            fx[3] += self._qs

    @abc.abstractmethod
    def _resolve_turn(self, p: int) -> None:
        """Hand the turn on after ``p``'s turn (the turn rules live in the state)."""

    def _hand_size(self, seat: int) -> int:
        if self._personal:
            return self._personal[seat]
        return self.rules.hand_size_for(self.num_players)

    def _first_dealer(self) -> int:
        n = self.num_players
        if self.rules.dealer == "random":
            return self._rng.randrange(n)
        seats = list(range(n))
        while True:  # one card face up to each, lowest deals, the tied draw again
            pack = shuffled_pack(self._decks, self._rng)
            drawn = {s: pack[i] for i, s in enumerate(seats)}
            self._log("dealer_draw", -1, cards={str(s): card_name(c) for s, c in drawn.items()})
            low = min(card_rank(c) for c in drawn.values())
            seats = [s for s in seats if card_rank(drawn[s]) == low]
            if len(seats) == 1:
                return seats[0]

    def _deal(self) -> None:
        n = self.num_players
        self._hand_no += 1
        self._stock = stock = shuffled_pack(self._decks, self._rng)
        self._hands = hands = [0] * n
        for k in range(1, n + 1):  # from the dealer's left; dealing blocks of a shuffled pack
            seat = (self._dealer + k) % n  # is as random as dealing one card at a time
            size = self._hand_size(seat)
            if self._decks == 1:
                mask = 0
                for card in stock[-size:]:
                    mask |= 1 << card
                hands[seat] = mask
            else:
                hands[seat] = mask_from_cards(stock[-size:])
            del stock[-size:]
        self._dir = 1
        self._pending = 0
        self._passes = 0
        self._turns = 0
        self._end_pending = False
        self._legal = None
        self._base = list(self._personal)
        self._wr = list(self._personal) if self._personal else [self._wild] * n
        self._log("deal", self._dealer, hand=self._hand_no, sizes=[self._count(s) for s in range(n)])
        up = stock.pop()
        if not self._personal and card_rank(up) == self._wild:
            if self.rules.upcard_eight == "bury_and_redraw":
                while card_rank(up) == self._wild:
                    stock.insert(len(stock) // 2, up)
                    self._log("upcard_buried", self._dealer, card=card_name(up))
                    up = stock.pop()
            else:
                self._pile = [up]
                self._top, self._follow, self._top_wild = up, card_suit(up), True
                self._log("upcard", self._dealer, card=card_name(up))
                self._cur, self._phase = self._dealer, P_NAME_SUIT
                self._drawn, self._drawn_card, self._announced = 0, -1, 0
                return
        self._pile = [up]
        self._top, self._follow, self._top_wild = up, card_suit(up), False
        self._log("upcard", self._dealer, card=card_name(up))
        self._fx = [0, 0, 0, 0]
        self._add_effects(up)
        self._resolve_turn(self._dealer)

    def _name_upcard(self, suit: int) -> None:
        self._follow = suit
        self._log("name_suit", self._cur, suit=suit_name(suit))
        self._fx = [0, 0, 0, 0]
        self._resolve_turn(self._cur)

    def _went_out(self, p: int) -> None:
        self._log("out", p)
        if self._personal and self.rules.countdown_mode == "continuous":
            self._personal[p] -= 1
            if self._personal[p] == 0:
                self._end_hand(p)
                return
            self._wr[p] = self._personal[p]
            got = self._draw_cards(p, self._personal[p])
            self._log("new_hand", p, cards=got, score=self._personal[p])
            self._fx = [0, 0, 0, 0]
            if got == 0:  # nothing left to deal: the round cannot go on
                self._end_hand(-1)
                return
            self._resolve_turn(p)
            return
        self._end_hand(p)

    def _end_hand(self, winner: int) -> None:
        from referee.games.crazy_eights.scoring import hand_points, match_over

        n = self.num_players
        values = [self._hand_value(s) for s in range(n)]
        if self._personal:
            if winner >= 0 and self.rules.countdown_mode == "per_round":
                self._personal[winner] -= 1
            points = [now - before for now, before in zip(self._personal, self._base)]
        else:
            points = hand_points(values, winner, self.rules.scoring_mode)
            for s in range(n):
                self._scores[s] += points[s]
        self._hand_scores.append(points)
        self._log("hand_end", winner, hand=self._hand_no, points=points, hands=values)
        over, places = match_over(self)
        if over:
            self._places = places
            self._phase = P_OVER
            self._legal = None
            self._log("match_end", -1, scores=list(self.scores), places=places)
            return
        if self.rules.next_dealer == "winner":
            low = min(values)
            lone = winner if winner >= 0 else (values.index(low) if values.count(low) == 1 else -1)
            self._dealer = lone if lone >= 0 else (self._dealer + 1) % n
        else:
            self._dealer = (self._dealer + 1) % n
        self._deal()

    def _hand_value(self, seat: int) -> int:
        wild = self._wild_rank_of(seat)
        return sum(card_value(c, wild) for c in mask_cards(self._hands[seat]))

    def _count(self, seat: int) -> int:
        return int(self._hands[seat].bit_count())

    def _log(self, kind: str, seat: int, **data: Any) -> None:
        self._events.append((kind, seat, data))

    def _draw_cards(self, p: int, count: int) -> int:
        got = 0
        for _ in range(count):
            if self._draw_one(p) < 0:
                break
            got += 1
        return got

    def _draw_one(self, p: int) -> int:
        stock = self._stock
        if not stock:
            if self.rules.stock_empty != "reshuffle" or len(self._pile) < 2:
                return -1
            stock.extend(self._pile[:-1])
            del self._pile[:-1]
            shuffle(stock, self._rng)
            self._log("reshuffle", -1, stock=len(stock))
        card = stock.pop()
        self._hands[p] = mask_add(self._hands[p], card)
        if not stock and self.rules.stock_empty == "end_hand":
            self._end_pending = True
        return card

    def fork(self, rng: random.Random) -> Self:
        """A copy to simulate with: the position and every counter, but no history, events or
        places, drawing from ``rng`` (shared, not copied). Much cheaper than :meth:`clone` for
        a search playing thousands of rollouts; a fork does not replay from its seed."""
        new = object.__new__(type(self))
        for name in Table.__slots__:
            setattr(new, name, getattr(self, name))
        new._rng = rng
        new._hands = list(self._hands)
        new._stock = list(self._stock)
        new._pile = list(self._pile)
        new._scores = list(self._scores)
        new._personal = list(self._personal)
        new._hand_scores = list(self._hand_scores)
        new._events = []
        new._history = []
        new._fx = list(self._fx)
        new._places = []
        new._base = list(self._base)
        new._wr = list(self._wr)
        return new

    def clone(self) -> Self:
        rng = random.Random()
        rng.setstate(self._rng.getstate())
        new = self.fork(rng)
        new._hand_scores = [list(h) for h in self._hand_scores]
        new._events = list(self._events)
        new._history = list(self._history)
        new._places = list(self._places)
        return new

    def redeal_hidden(self, seat: int, rng: random.Random) -> None:
        others = [s for s in range(self.num_players) if s != seat]
        pool = list(self._stock)
        for s in others:
            pool.extend(mask_cards(self._hands[s]))
        shuffle(pool, rng)
        self._stock = pool[:len(self._stock)]
        at = len(self._stock)
        for s in others:
            size = self._count(s)
            self._hands[s] = mask_from_cards(pool[at:at + size])
            at += size
        self._rng = random.Random(rng.getrandbits(64))
        self._legal = None

    def card_count(self) -> int:
        return len(self._stock) + len(self._pile) + sum(self._count(s) for s in range(self.num_players))

    def hand_mask(self, seat: int) -> int:
        """The hand of ``seat`` as a bitmask (for tests and in-process search bots)."""
        return self._hands[seat]

    def hand_cards(self, seat: int) -> list[int]:
        return mask_cards(self._hands[seat])

    def _wild_rank_of(self, seat: int) -> int:
        return self._wr[seat]

    def _can_get_card(self) -> bool:
        return bool(self._stock) or (self.rules.stock_empty == "reshuffle" and len(self._pile) > 1)

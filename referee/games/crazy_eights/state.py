"""The Crazy Eights engine: exact to spec Part B and the presets of section 1.

The engine follows the contract of :mod:`referee.games.base`. It is written for speed (search
bots and tournaments play millions of decisions): the state is mutable with ``__slots__``, a
hand is a card bitmask (:mod:`referee.cards`), actions are ints (:mod:`.actions`), and the
legal actions of a position are computed once and cached until the next ``apply``.

Turn structure. Each decision is one action of the current player:

* ``play``: a legal card (a wild names a suit; ``last`` announces the last card);
* ``draw``: per ``draw_mode``: ``one_then_end`` ends the turn; ``one_may_play`` lets the player
  play the drawn card at once or ``pass``; ``up_to_n`` and ``until_playable`` keep the turn
  open for more draws or a play;
* ``pass``: only when no card can be drawn (limit reached, or stock and pile exhausted);
* facing a stacking draw-two chain: play the draw-two rank or ``draw`` (take the penalty);
* ``stop``: end a multi-card play; ``name S``: the dealer names a suit for a wild upcard.

Engine decisions (documented to bot authors; spec items marked [ENGINE DECISION]):

* A pass counts towards a blocked hand only when the player drew nothing that turn; N passes
  in a row (every seat) block the hand. A hand reaching ``max_turns_per_hand`` turns is
  blocked too, and scored as blocked.
* A card of the suit-changer rank scores 50 (8 = 50 in the standard game); 10, J, Q, K score
  10; Ace 1; the rest their face value.
* A special card that empties its player's hand has no effect. A penalty the stock cannot
  supply lapses. A non-stacking draw (Queen in ``house``, QS draw five) makes the next player
  draw at once and lose the turn.
* ``multi_card_play``: after a play the player may play more cards of the same rank, then
  ``stop``; effects add up (two skips skip two players, two reverses cancel, two draw-twos
  make four) and apply when the turn ends. The "last card" flag is judged on the turn's last
  play.
* Countdown: every seat's wild is its own score's rank (1 = Ace); the upcard is always an
  ordinary card; a blocked round changes no score.
* House ``next_dealer = winner``: after a blocked hand with no single lowest hand, the deal
  passes clockwise.
* ``stock_empty = end_hand`` (``french``): the hand ends at the end of the turn in which the
  last stock card was drawn, and is scored as blocked (everyone counts their hand).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.cards import (
    NUM_CARDS, RANK_MASKS, SUIT_MASKS, bits, card_name, card_rank, card_suit, mask_add,
    mask_cards, mask_from_cards, mask_remove, shuffled_pack, suit_name,
)
from referee.games.base import Event, IllegalActionError, MatchState, shared_places
from referee.games.crazy_eights import actions as A
from referee.games.crazy_eights.explain import explain_illegal
from referee.games.crazy_eights.rules import CrazyEightsRules

FULL = (1 << NUM_CARDS) - 1
QS = 3 * 13 + 11  # queen of spades
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


class CrazyEightsState(MatchState[CrazyEightsRules]):
    """A Crazy Eights match (see the module docstring)."""

    game = "crazy-eights"
    __slots__ = (
        "rules", "num_players", "seed", "_rng", "_wild", "_skip", "_rev", "_d2", "_qs",
        "_multi", "_decks", "_guard", "_target", "_hands", "_stock", "_pile", "_top",
        "_follow", "_top_wild", "_dir", "_cur", "_dealer", "_phase", "_pending", "_drawn",
        "_drawn_card", "_passes", "_turns", "_hand_no", "_hand_scores", "_scores",
        "_personal", "_announced", "_fx", "_end_pending", "_extra", "_events", "_history",
        "_legal", "_places", "_base", "_wr", "_mode", "_may_draw", "_limit",
    )

    def __init__(self, rules: CrazyEightsRules, players: int, seed: int) -> None:
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
        self._multi = {"off": 0, "on": -1, "skip_rank_only": self._skip}[rules.multi_card_play]
        self._decks = rules.decks_for(players)
        self._mode = rules.draw_mode
        self._may_draw = rules.may_draw_when_able_to_play
        self._limit = rules.draw_limit if rules.draw_mode == "up_to_n" else (1 << 30)
        self._guard = rules.turn_guard_for(players)
        self._target = rules.target_for(players)
        self._hand_scores: list[list[int]] = []
        self._scores = [0] * players
        countdown = rules.variant == "countdown"
        self._personal = [rules.countdown_start] * players if countdown else []
        self._extra = 0
        self._events: list[tuple[str, int, dict[str, Any]]] = []
        self._history: list[tuple[int, int]] = []
        self._places: list[int] = []
        self._hand_no = 0
        self._fx = [0, 0, 0, 0]  # skips, reverses, draw-two cards, forced draw
        size = self._hand_size(0) * players + 1
        if size > NUM_CARDS * self._decks:
            raise_rules(f"{players} players with {self._hand_size(0)} cards each need more "
                        f"than {self._decks} pack(s); set 'decks' to 2")
        self._dealer = self._first_dealer()
        self._deal()

    # --- contract ----------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self._cur if self._phase != P_OVER else -1

    @property
    def is_over(self) -> bool:
        return self._phase == P_OVER

    @property
    def events(self) -> Sequence[Event]:
        """Public events, built on demand (the hot path stores plain tuples)."""
        return [Event(kind, seat, data) for kind, seat, data in self._events]

    @property
    def history(self) -> Sequence[tuple[int, int]]:
        return self._history

    @property
    def hand_number(self) -> int:
        return self._hand_no

    @property
    def hand_scores(self) -> Sequence[Sequence[int]]:
        return self._hand_scores

    @property
    def scores(self) -> Sequence[int]:
        return self._personal if self._personal else self._scores

    def standings(self) -> list[int]:
        if self._phase != P_OVER:
            raise IllegalActionError("the match is not over: standings come at the end")
        return list(self._places)

    def legal_actions(self) -> Sequence[int]:  # type: ignore[override]
        """The legal actions, sorted, as a tuple (computed once per position)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = tuple(self._compute_legal())
        return legal

    def apply(self, action: int) -> None:
        legal = self._legal
        if legal is None:
            legal = self._legal = tuple(self._compute_legal())
        if action not in legal:
            action = self._normalise(action)
            if action not in legal:
                raise IllegalActionError(explain_illegal(self, action), action)
        self._legal = None
        p = self._cur
        self._history.append((p, action))
        if action >= A.PLAY:
            x = action - A.PLAY
            self._play(p, x >> 4, (x >> 1) & 7, x & 1)
        elif action == A.DRAW:
            self._draw_action(p)
        elif action == A.PASS:
            self._pass_action(p)
        elif action == A.STOP:
            self._end_play_turn(p)
        else:
            self._name_upcard(action - A.NAME_SUIT)

    def _normalise(self, action: int) -> int:
        """Under ``eight_names_suit = optional`` a wild that names no suit keeps its own."""
        if self.rules.eight_names_suit == "optional" and A.is_valid_id(action) and action >= A.PLAY:
            card, named, flag = A.play_parts(action)
            if named == A.NO_SUIT and card % 13 + 1 == self._wild_rank_of(self._cur):
                return A.play_action(card, card // 13, bool(flag))
        return action

    # --- the deal ------------------------------------------------------------------------------

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
        self._hands = [0] * n
        for i in range(max(self._hand_size(s) for s in range(n))):
            for k in range(1, n + 1):
                seat = (self._dealer + k) % n
                if i < self._hand_size(seat):
                    self._hands[seat] = mask_add(self._hands[seat], stock.pop())
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

    # --- legal actions -------------------------------------------------------------------------

    def _wild_rank_of(self, seat: int) -> int:
        return self._wr[seat]

    def _play_mask(self, seat: int) -> int:
        """The distinct card ids ``seat`` may play now (phase play)."""
        hand = self._hands[seat]
        rules = self.rules
        wild = RANK_MASKS[self._wr[seat]]
        if self._top_wild:
            match = SUIT_MASKS[self._follow] | wild
            if rules.same_rank_on_wild:
                match |= RANK_MASKS[self._top % 13 + 1]
        elif rules.eight_must_match:
            match = SUIT_MASKS[self._follow] | RANK_MASKS[self._top % 13 + 1]
        else:
            match = SUIT_MASKS[self._follow] | RANK_MASKS[self._top % 13 + 1] | wild
        m = (hand | (hand >> NUM_CARDS)) & match
        if rules.must_finish_on_eight and hand.bit_count() == 1:
            m &= wild
        return m

    def _can_get_card(self) -> bool:
        return bool(self._stock) or (self.rules.stock_empty == "reshuffle" and len(self._pile) > 1)

    def _draw_allowed(self, plays: int) -> bool:
        """Whether ``draw`` is legal in phase play, given the playable cards."""
        drawn = self._drawn
        if drawn and (drawn >= self._limit or self._mode in ("one_then_end", "one_may_play")):
            return False
        return (plays == 0 or self._may_draw) and (bool(self._stock) or self._can_get_card())

    def _compute_legal(self) -> list[int]:
        phase = self._phase
        p = self._cur
        if phase == P_PLAY:
            plays = self._play_mask(p)
            if self._draw_allowed(plays):
                out = [A.DRAW]
            elif plays == 0 or self._may_draw:
                out = [A.PASS]
            else:
                out = []
            if plays:
                self._add_plays(out, p, plays)
            return out
        if phase == P_DRAW_TWO:
            twos = (self._hands[p] | (self._hands[p] >> NUM_CARDS)) & RANK_MASKS[self._d2]
            if self._top_wild:  # a wild draw-two (countdown): answer with a two of the named suit
                twos &= SUIT_MASKS[self._follow]
            out = [A.DRAW]
            self._add_plays(out, p, twos & FULL)
            return out
        if phase == P_AFTER_DRAW:
            out = [A.PASS]
            self._add_plays(out, p, self._play_mask(p) & (1 << self._drawn_card))
            return out
        if phase == P_MULTI:
            hand = self._hands[p]
            same = (hand | (hand >> NUM_CARDS)) & RANK_MASKS[self._top % 13 + 1]
            if self.rules.must_finish_on_eight and hand.bit_count() == 1:
                same &= RANK_MASKS[self._wr[p]]
            out = [A.STOP]
            self._add_plays(out, p, same & FULL)
            return out
        if phase == P_NAME_SUIT:
            return [A.NAME_SUIT + s for s in range(4)]
        return []

    def _add_plays(self, out: list[int], p: int, mask: int) -> None:
        """Append the play ids of the cards in ``mask``, in card order."""
        wild_mask = 0 if self._phase == P_DRAW_TWO else RANK_MASKS[self._wr[p]]
        announce = self.rules.last_card_penalty and self._hands[p].bit_count() == 2
        append = out.append
        while mask:
            low = mask & -mask
            mask ^= low
            base = _PLAY_NO_SUIT[low.bit_length() - 1]
            if low & wild_mask:
                self._add_wild(out, base, announce)
            elif announce:
                out.extend((base, base + 1))
            else:
                append(base)

    def _add_wild(self, out: list[int], base: int, announce: bool) -> None:
        naming = self.rules.eight_names_suit
        card = (base - A.PLAY) >> 4
        if naming == "off":
            suits: Sequence[int] = (A.NO_SUIT,)
        elif naming == "only_if_matching" and not self._follows_top(card):
            suits = (card // 13,)
        else:
            suits = (0, 1, 2, 3)
        first = base - (A.NO_SUIT << 1)
        for s in suits:
            out.append(first + (s << 1))
            if announce:
                out.append(first + (s << 1) + 1)

    def _follows_top(self, card: int) -> bool:
        return card // 13 == self._follow or (not self._top_wild and card % 13 == self._top % 13)

    # --- actions -------------------------------------------------------------------------------

    def _play(self, p: int, card: int, named: int, announce: int) -> None:
        self._hands[p] = mask_remove(self._hands[p], card)
        self._pile.append(card)
        self._top = card
        self._passes = 0
        rank = card % 13 + 1
        is_wild = rank == self._wild_rank_of(p) and self._phase != P_DRAW_TWO
        if is_wild:
            self._follow = card // 13 if named == A.NO_SUIT else named
        else:
            self._follow = card // 13
        self._top_wild = is_wild
        self._announced = announce
        if self._phase != P_MULTI:
            self._fx = [0, 0, 0, 0]
        self._log("play", p, card=card_name(card), suit=suit_name(self._follow) if is_wild else None,
                  last=bool(announce))
        if not self._hands[p]:
            self._went_out(p)
            return
        self._add_effects(card)
        if self._multi and (self._multi < 0 or self._multi == rank):
            hand = self._hands[p]
            if (hand | (hand >> NUM_CARDS)) & RANK_MASKS[rank]:
                self._phase = P_MULTI
                return
        self._end_play_turn(p)

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

    def _end_play_turn(self, p: int) -> None:
        hand = self._hands[p]
        if hand.bit_count() == 1:
            if self.rules.last_card_penalty and not self._announced:
                got = self._draw_cards(p, self.rules.last_card_penalty)
                self._log("last_card_penalty", p, cards=got)
            elif self.rules.reveal_last_eight and card_rank(mask_cards(hand)[0]) == self._wild_rank_of(p):
                self._log("last_card_is_wild", p, card=card_name(mask_cards(hand)[0]))
        self._resolve_turn(p)

    def _resolve_turn(self, p: int) -> None:
        """Apply the turn's special effects and hand the turn on."""
        n = self.num_players
        skips, reverses, draw_two, forced = self._fx
        if reverses % 2:
            if n > 2:
                self._dir = -self._dir
            elif self.rules.reverse_two_players == "skip":
                skips += 1
        nxt = (p + self._dir) % n
        if draw_two and not self.rules.draw_two_stacking:
            forced += draw_two
            draw_two = 0
        if forced:
            got = self._draw_cards(nxt, forced)
            self._log("penalty_draw", nxt, cards=got)
            skips += 1
        self._pending += draw_two
        nxt = (nxt + skips * self._dir) % n
        self._fx = [0, 0, 0, 0]
        self._start_turn(nxt)

    def _start_turn(self, seat: int) -> None:
        if self._end_pending:
            self._end_hand(-1)
            return
        self._turns += 1
        if self._turns > self._guard:
            self._log("loop_guard", -1, turns=self._guard)
            self._end_hand(-1)
            return
        self._cur = seat
        self._phase = P_DRAW_TWO if self._pending else P_PLAY
        self._drawn = 0
        self._drawn_card = -1
        self._announced = 0

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
            self._rng.shuffle(stock)
            self._log("reshuffle", -1, stock=len(stock))
        card = stock.pop()
        self._hands[p] = mask_add(self._hands[p], card)
        if not stock and self.rules.stock_empty == "end_hand":
            self._end_pending = True
        return card

    def _draw_action(self, p: int) -> None:
        self._passes = 0
        if self._phase == P_DRAW_TWO:
            got = self._draw_cards(p, self._pending)
            self._log("take_penalty", p, cards=got)
            self._pending = 0
            self._resolve_turn(p)
            return
        card = self._draw_one(p)
        self._drawn += 1
        self._log("draw", p, cards=1)
        mode = self.rules.draw_mode
        if mode == "one_then_end":
            self._resolve_turn(p)
        elif mode == "one_may_play":
            if self._play_mask(p) >> card & 1:
                self._phase, self._drawn_card = P_AFTER_DRAW, card
            else:
                self._resolve_turn(p)

    def _pass_action(self, p: int) -> None:
        if self._drawn == 0 and self._phase == P_PLAY:
            self._passes += 1
        self._log("pass", p)
        if self._passes >= self.num_players:
            self._log("blocked", -1)
            self._end_hand(-1)
            return
        self._resolve_turn(p)

    # --- end of hand and match -----------------------------------------------------------------

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

    # --- views, copies, text -------------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        from referee.games.crazy_eights.views import build_view

        return build_view(self, seat)

    def clone(self) -> CrazyEightsState:
        new = object.__new__(CrazyEightsState)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        new._rng = random.Random()
        new._rng.setstate(self._rng.getstate())
        new._hands = list(self._hands)
        new._stock = list(self._stock)
        new._pile = list(self._pile)
        new._scores = list(self._scores)
        new._personal = list(self._personal)
        new._hand_scores = [list(h) for h in self._hand_scores]
        new._events = list(self._events)
        new._history = list(self._history)
        new._fx = list(self._fx)
        new._places = list(self._places)
        new._base = list(self._base)
        new._wr = list(self._wr)
        return new

    def action_name(self, action: int) -> str:
        return A.action_name(action)

    def parse_action(self, text: str) -> int:
        return A.parse_action(text)

    def action_to_json(self, action: int) -> int:
        return action

    def action_from_json(self, data: Any) -> int:
        if not A.is_valid_id(data):
            raise IllegalActionError(f"{data!r} is not a Crazy Eights action id", data)
        return int(data)

    def redeal_hidden(self, seat: int, rng: random.Random) -> None:
        others = [s for s in range(self.num_players) if s != seat]
        pool = list(self._stock)
        for s in others:
            pool.extend(mask_cards(self._hands[s]))
        rng.shuffle(pool)
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


def raise_rules(message: str) -> None:
    from referee.games.base import RulesError

    raise RulesError(message)


__all__ = ["CrazyEightsState", "arrange", "card_value", "PHASE_NAMES"]


def arrange(state: CrazyEightsState, hands: Sequence[Sequence[int]], pile: Sequence[int],
            stock: Sequence[int], current: int, named_suit: int | None = None,
            direction: int = 1, pending_draw: int = 0, dealer: int | None = None) -> CrazyEightsState:
    """Set up a position by hand: for tests, puzzles and teaching examples.

    ``pile`` lists the play pile bottom to top and ``stock`` the stock bottom to top (the last
    card is drawn first). ``named_suit`` marks the top card as a wild that named that suit.
    Scores, hand number and the rest of the match stay as they were.
    """
    from referee.cards import mask_from_cards

    if len(hands) != state.num_players:
        raise ValueError(f"arrange: {len(hands)} hands given for {state.num_players} seats")
    if not pile:
        raise ValueError("arrange: the play pile needs at least its top card")
    state._hands = [mask_from_cards(h) for h in hands]
    state._pile = list(pile)
    state._stock = list(stock)
    state._top = pile[-1]
    state._top_wild = named_suit is not None
    state._follow = named_suit if named_suit is not None else card_suit(pile[-1])
    state._dir = direction
    state._pending = pending_draw
    state._passes = 0
    state._turns = 1
    state._fx = [0, 0, 0, 0]
    state._end_pending = False
    if dealer is not None:
        state._dealer = dealer
    state._cur = current
    state._phase = P_DRAW_TWO if pending_draw else P_PLAY
    state._drawn, state._drawn_card, state._announced = 0, -1, 0
    state._legal = None
    return state

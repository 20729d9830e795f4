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
  blocked too, and scored as blocked. A match ends after ``max_hands`` hands (default 200)
  whatever the totals, so that no rule set can play on for ever.
* A card of the suit-changer rank scores 50 (8 = 50 in the standard game); 10, J, Q, K score
  10; Ace 1; the rest their face value.
* A special card that empties its player's hand has no effect. A penalty the stock cannot
  supply lapses. A non-stacking draw (Queen in ``house``, QS draw five) makes the next player
  draw at once and lose the turn; when the QS is also the skip rank, that lost turn is the
  skip (the player after the drawer plays next).
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

from collections.abc import Sequence
from typing import Any

from referee.cards import (
    NUM_CARDS, RANK_MASKS, SUIT_LETTERS, SUIT_MASKS, card_name, card_rank, card_suit, mask_cards,
    mask_from_cards,
)
from referee.games.base import IllegalActionError, MatchState
from referee.games.crazy_eights import actions as A
from referee.games.crazy_eights.explain import explain_illegal
from referee.games.crazy_eights.rules import CrazyEightsRules
from referee.games.crazy_eights.views import build_view
from referee.games.crazy_eights.table import (  # noqa: F401  (PHASE_NAMES, card_value: re-exported)
    _PLAY_NO_SUIT, CARD_NAMES, FULL, P_AFTER_DRAW, P_DRAW_TWO, P_MULTI, P_NAME_SUIT, P_OVER, P_PLAY,
    PHASE_NAMES, Table, card_value,
)


class CrazyEightsState(Table, MatchState[CrazyEightsRules]):
    """A Crazy Eights match (see the module docstring)."""

    game = "crazy-eights"
    __slots__ = ()

    # --- contract ----------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self._cur if self._phase != P_OVER else -1

    @property
    def is_over(self) -> bool:
        return self._phase == P_OVER

    @property
    def history(self) -> Sequence[tuple[int, int]]:
        return self._history

    @property
    def hand_scores(self) -> Sequence[Sequence[int]]:
        return self._hand_scores

    def standings(self) -> list[int]:
        if self._phase != P_OVER:
            raise IllegalActionError("the match is not over: standings come at the end")
        return list(self._places)

    def legal_actions(self) -> Sequence[int]:
        """The legal actions, sorted, as a tuple (computed once per position)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = tuple(self._compute_legal())
        return legal

    def apply(self, action: int) -> None:
        if type(action) is not int:  # False == 0 == 0.0 would pass the membership test below
            raise IllegalActionError(explain_illegal(self, action), action)
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

    # --- legal actions -------------------------------------------------------------------------

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
            if self.rules.must_finish_on_eight and self._hands[p].bit_count() == 1:
                twos = 0  # a last card answering the chain would go out on a two, not on the wild rank
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
        announce = bool(self.rules.last_card_penalty) and self._hands[p].bit_count() == 2
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
        hand = self._hands[p]
        high = 1 << (card + NUM_CARDS)
        hand = self._hands[p] = hand ^ high if hand & high else hand ^ (1 << card)
        self._pile.append(card)
        self._top = card
        self._passes = 0
        rank = card % 13 + 1
        is_wild = rank == self._wr[p] and self._phase != P_DRAW_TWO
        if is_wild and named != A.NO_SUIT:
            self._follow = named
        else:
            self._follow = card // 13
        self._top_wild = is_wild
        self._announced = announce
        self._events.append(("play", p, {"card": CARD_NAMES[card],
                                         "suit": SUIT_LETTERS[self._follow] if is_wild else None,
                                         "last": bool(announce)}))
        if not hand:
            self._went_out(p)
            return
        if self._specials:
            self._add_effects(card)
        if self._multi and (self._multi < 0 or self._multi == rank):
            if (hand | (hand >> NUM_CARDS)) & RANK_MASKS[rank]:
                self._phase = P_MULTI
                return
        self._end_play_turn(p)

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
        fx = self._fx
        if not (fx[0] or fx[1] or fx[2] or fx[3]):
            self._start_turn((p + self._dir) % n)
            return
        skips, reverses, draw_two, forced = fx
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
            skips = max(skips, 1)  # the drawer loses its turn: the same turn a skip card takes (QS as skip)
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

    # --- views, copies, text -------------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        return build_view(self, seat)

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

__all__ = ["CrazyEightsState", "arrange", "card_value", "PHASE_NAMES"]


def arrange(state: CrazyEightsState, hands: Sequence[Sequence[int]], pile: Sequence[int],
            stock: Sequence[int], current: int, named_suit: int | None = None,
            direction: int = 1, pending_draw: int = 0, dealer: int | None = None) -> CrazyEightsState:
    """Set up a position by hand: for tests, puzzles and teaching examples.

    ``pile`` lists the play pile bottom to top and ``stock`` the stock bottom to top (the last
    card is drawn first). ``named_suit`` marks the top card as a wild that named that suit.
    Scores, hand number and the rest of the match stay as they were.
    """

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

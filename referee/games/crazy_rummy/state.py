"""The Crazy Rummy rules engine: one match of 13 deals (spec Part A, preset ``standard``).

The rules, as the engine plays them by default (PG-CR basic rules):

* 3 to 6 players (2 with ``players = 2-6``, 10 cards each), one 52-card pack. Deal *k* makes
  rank *k* wild: Aces in deal 1 .. Kings in deal 13 (``wild_sequence``).
* The first dealer is drawn at random from the match's generator; the deal then passes one
  seat clockwise (to the next seat number). The dealer deals 7 cards each, one at a time from
  the dealer's left, and an 8th card to the first player (left of the dealer).
* Turn: draw one card (stock top, or discard pile top), then any table actions (meld a set or a
  run; once opened, lay off and exchange wilds), then discard one card. The first turn of a
  deal has no draw. Going out = discarding one's last card; a final discard is always required.
* One-card rule, stock exhaustion, the stall guard and scoring as in spec A.3 rules 18-23.

Phases (``view["phase"]``): ``draw`` -> ``table`` -> ``discard``, then the next player's
``draw``; ``over`` when the match has ended. The table phase ends with the ``end_table``
action. When the rules allow no table action in a turn (``first_turn_meld = discard_only``,
``no_meld_until_round_complete``, or a one-card turn of a player who has not opened) the turn
goes straight from the draw to the discard [ENGINE DECISION].

The spec's [ENGINE DECISION]s, as played here (documented to bot authors):

* every card of a meld carries its declared meaning, so wilds are never guessed (rule 10; the
  encoding is in :mod:`.actions`);
* a wild freed by an exchange may be kept or discarded (rule 14), unless
  ``reclaimed_wild_must_be_used``; the card just taken from the discard pile may be discarded
  again (rule 16), unless ``may_discard_card_just_taken = off``;
* a one-card turn allows a single lay-off, which leads to going out, and no exchange (rule 18);
* the stall guard: a deal whose turn number reaches ``max_turns_per_deal`` (40 x players) ends
  after that turn's discard and is scored with every hand counting, or voided (rule 20);
* the whole discard pile is shown (rule 27); ties share places (``tie_policy = shared``).

Further decisions of the engine:

1. The first dealer is ``rng.randrange(players)`` rather than a draw for lowest card: the same
   uniform choice, with one call to the match generator.
2. Lay-offs are one card per action; exchanges only after drawing, so never on the first turn
   of a deal. The table-phase details of the switches are in :mod:`.table`; what "all wild"
   means for ``allow_all_wild_melds`` is in :mod:`talon_sdk.melds`.
3. Stock exhaustion: the deal ends when the player who drew the last stock card discards
   without going out (rule 19(b)). With ``reshuffle`` (``turn_over``) the discard pile except
   its top card becomes the new stock at that moment, shuffled (turned over, the oldest card on
   top); if that leaves no stock, the deal ends as exhausted.
4. Hands are never revealed, not even after a deal: events carry scores only.
5. Scores of a deal are multiplied (``double_when_wild_in``) after the go-out bonus is added;
   the tie-break ``deals_won_then_worst_deal`` is in :mod:`.scoring`.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Sequence
from typing import Any

from referee.games.base import IllegalActionError, MatchState, TupleEventLog
from referee.games.crazy_rummy import actions as acts
from referee.games.crazy_rummy.actions import RummyAction
from referee.games.crazy_rummy.rules import CrazyRummyRules
from referee.games.crazy_rummy.scoring import deal_points, places
from referee.games.crazy_rummy.table import (
    MUST_RECLAIMED,
    MUST_TAKEN,
    TablePlan,
    can_place,
    list_table_actions,
    must_text,
    plan_table_action,
    wrong_phase_reason,
)
from talon_sdk.cards import card_name, shuffled_pack
from talon_sdk.melds import Meld, MeldRules

DRAW, TABLE, DISCARD, OVER = range(4)
PHASE_NAMES = ("draw", "table", "discard", "over")


class CrazyRummyState(TupleEventLog, MatchState[CrazyRummyRules]):
    """A Crazy Rummy match; see the module docstring and :mod:`referee.games.base`."""

    game = "crazy-rummy"

    # Match-wide fields.
    _rng: random.Random
    _events: list[tuple[str, int, dict[str, Any]]]
    _history: list[tuple[int, RummyAction]]
    _scores: list[int]
    _deal_scores: list[list[int]]
    _deals_won: list[int]
    _legal: list[RummyAction] | None
    # The deal: who deals, what is wild, where every card is. ``_public[s]`` lists the cards of
    # seat s's hand every seat knows of (taken from the discard pile or by an exchange).
    _deal_no: int
    _dealer: int
    _first_player: int
    _wild: int
    _meld_rules: MeldRules
    _hands: list[list[int]]
    _public: list[list[int]]
    _stock: list[int]
    _discard: list[int]
    _melds: list[Meld]
    _opened: list[bool]
    _out: list[int]
    # The turn.
    _turn: int
    _cur: int
    _phase: int
    _drawn: int
    _taken_in_hand: bool
    _must_place: int
    _must_why: str
    _drew_last: bool
    _one_card: bool
    _held: int
    _laid_one: bool

    def __init__(self, rules: CrazyRummyRules, players: int, seed: int) -> None:
        rules.check_players(players)
        self.rules = rules
        self.num_players = players
        self.seed = seed
        self._rng = random.Random(seed)
        self._events = []
        self._history = []
        self._scores = [0] * players
        self._deal_scores = []
        self._deals_won = [0] * players
        self._deal_no = 0
        self._dealer = self._rng.randrange(players)
        self._legal = None
        self._start_deal()

    # --- the contract's read side ---------------------------------------------------------

    @property
    def current_player(self) -> int:
        return -1 if self._phase == OVER else self._cur

    @property
    def history(self) -> Sequence[tuple[int, RummyAction]]:
        return list(self._history)

    @property
    def hand_number(self) -> int:
        return self._deal_no

    @property
    def hand_scores(self) -> Sequence[Sequence[int]]:
        return [list(s) for s in self._deal_scores]

    @property
    def scores(self) -> Sequence[int]:
        return list(self._scores)

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    @property
    def wild_rank(self) -> int:
        return self._wild

    @property
    def melds(self) -> Sequence[Meld]:
        return list(self._melds)

    def hand(self, seat: int) -> list[int]:
        """The cards of ``seat``, sorted (the engine's own hand list: do not mutate)."""
        return self._hands[seat]

    def standings(self) -> list[int]:
        return places(self.rules, self._scores, self._deal_scores, self._deals_won)

    def card_count(self) -> int:
        return (len(self._stock) + len(self._discard) + sum(len(h) for h in self._hands)
                + sum(len(m.cards) for m in self._melds))

    # --- legal actions ----------------------------------------------------------------------

    def legal_actions(self) -> list[RummyAction]:
        """Every legal action in the draw and discard phases; a canonical subset plus
        ``end_table`` in the table phase (``apply`` accepts any legal table action)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[RummyAction]:
        if self._phase == OVER:
            return []
        if self._phase == DRAW:
            out = [RummyAction(acts.DRAW_STOCK)]
            if self._discard_draw_problem() is None:
                out.append(RummyAction(acts.DRAW_DISCARD))
            return out
        if self._phase == DISCARD:
            return [RummyAction(acts.DISCARD, (c,)) for c in sorted(set(self.hand(self._cur)))
                    if self._discard_problem(c) is None]
        return list_table_actions(self)

    def is_legal(self, action: RummyAction) -> bool:
        """Whether ``apply(action)`` would succeed (tries it on a clone)."""
        try:
            self.clone().apply(action)
        except IllegalActionError:
            return False
        return True

    # --- apply --------------------------------------------------------------------------------

    def apply(self, action: RummyAction) -> None:
        if self._phase == OVER:
            raise IllegalActionError("illegal: the match is over", action)
        a = acts.check_shape(action)
        seat = self._cur
        handler = _HANDLERS.get((self._phase, a.kind))
        if handler is None:
            raise IllegalActionError(wrong_phase_reason(self, a), action)
        handler(self, a)
        self._history.append((seat, a))
        self._legal = None

    # --- draw ---------------------------------------------------------------------------------

    def _draw_stock(self, action: RummyAction) -> None:
        if not self._stock:  # pragma: no cover - a deal ends before the stock can run dry
            raise IllegalActionError("illegal: the stock is empty", action)
        card = self._stock.pop()
        self._receive(card)
        self._drew_last = not self._stock
        self._log("draw", self._cur, source="stock")
        self._after_draw()

    def _discard_draw_problem(self) -> str | None:
        """Why the current player may not take the top discard, or None."""
        if not self._discard:
            return "the discard pile is empty"
        if self._one_card:
            return ("you began this turn holding one card: the one-card rule says you must draw "
                    "from the stock")
        if self.rules.discard_take_must_meld and not can_place(self, self._discard[-1]):
            return (f"with discard_take_must_meld = on you may take {card_name(self._discard[-1])}"
                    f" only if you can meld it or lay it off at once, and you cannot")
        return None

    def _draw_discard(self, action: RummyAction) -> None:
        problem = self._discard_draw_problem()
        if problem is not None:
            raise IllegalActionError("illegal: " + problem, action)
        card = self._discard.pop()
        self._receive(card)
        self._taken_in_hand = True
        self._public[self._cur].append(card)
        if self.rules.discard_take_must_meld:
            self._must_place, self._must_why = card, MUST_TAKEN
        self._log("draw", self._cur, source="discard", card=card)
        self._after_draw()

    def _receive(self, card: int) -> None:
        bisect.insort(self._hands[self._cur], card)
        self._drawn = card

    def _after_draw(self) -> None:
        self._phase = TABLE if self._table_allowed() else DISCARD

    def _table_allowed(self) -> bool:
        """Whether the rules allow any table action in the current turn."""
        if self._turn == 1 and self.rules.first_turn_meld == "discard_only":
            return False
        if self.rules.no_meld_until_round_complete and self._turn <= self.num_players:
            return False
        return not (self._one_card and not self._opened[self._cur])

    # --- table ------------------------------------------------------------------------------

    def _table_action(self, action: RummyAction) -> None:
        plan = plan_table_action(self, action)
        self._commit(plan)

    def _commit(self, plan: TablePlan) -> None:
        seat = self._cur
        self._hands[seat] = plan.hand
        if plan.meld_index < 0:
            self._melds.append(plan.meld)
        else:
            self._melds[plan.meld_index] = plan.meld
        if plan.opens:
            self._opened[seat] = True
        if self._taken_in_hand and self._drawn in plan.placed:
            self._taken_in_hand = False
        public = self._public[seat]
        for card in plan.placed:
            if card in public:
                public.remove(card)
        if plan.gained >= 0:
            public.append(plan.gained)
        if self._must_place >= 0 and self._must_place in plan.placed:
            self._must_place = -1
        if plan.must_place >= 0:
            self._must_place, self._must_why = plan.must_place, MUST_RECLAIMED
        self._log(plan.event, seat, **plan.event_data)
        if self._one_card:
            self._phase = DISCARD  # a one-card turn allows a single lay-off (rule 18)
            self._laid_one = True

    def _end_table(self, action: RummyAction) -> None:
        if self._must_place >= 0:
            raise IllegalActionError("illegal: " + must_text(self), action)
        self._phase = DISCARD

    # --- discard and the end of a turn -------------------------------------------------------

    def _discard_problem(self, card: int) -> str | None:
        hand = self.hand(self._cur)
        if card not in hand:
            return f"you do not hold {card_name(card)}"
        if self._one_card and not self._laid_one and card != self._held:
            return (f"one-card rule: you did not go out, so you keep the card you drew "
                    f"({card_name(self._drawn)}) and discard the card you held "
                    f"({card_name(self._held)})")
        if (not self.rules.may_discard_card_just_taken and self._taken_in_hand
                and card == self._drawn and hand.count(card) < 2):
            return (f"you may not discard {card_name(card)}, the card you just took from the "
                    f"discard pile (may_discard_card_just_taken = off)")
        return None

    def _discard_action(self, action: RummyAction) -> None:
        card = action.cards[0]
        problem = self._discard_problem(card)
        if problem is not None:
            raise IllegalActionError("illegal: " + problem, action)
        seat = self._cur
        self._hands[seat].remove(card)
        if card in self._public[seat]:
            self._public[seat].remove(card)
        self._discard.append(card)
        self._log("discard", seat, card=card)
        if not self._hands[seat]:
            self._log("go_out", seat)
            self._out.append(seat)
        self._end_turn(seat)

    def _end_turn(self, seat: int) -> None:
        """After a discard: the deal ends (rules 17, 19, 20) or the next player's turn begins.

        With ``first_turn_go_out = full_turn`` (Benny) a player going out in the first round
        lets the players who have not had a turn yet play theirs; the deal ends after the round.
        """
        n = self.num_players
        more = self.rules.first_turn_go_out == "full_turn" and self._turn < n
        if self._out and not more:
            self._end_deal("went_out")
        elif self._drew_last and not self._refill_stock():
            self._end_deal("went_out" if self._out else "stock_exhausted")
        elif self._turn >= self.rules.turn_limit(n):
            if not self._out:
                self._log("stalled", -1, turns=self._turn, resolution=self.rules.stall_resolution)
            self._end_deal("went_out" if self._out else "stalled")
        else:
            self._turn += 1
            self._begin_turn((seat + 1) % n)

    def _refill_stock(self) -> bool:
        """Stock exhaustion (rule 19(b)): end the deal, or make a new stock; True if play goes on."""
        mode = self.rules.stock_exhausted
        rest = self._discard[:-1]
        if mode == "end_deal" or not rest:
            self._log("stock_exhausted", self._cur, resolution="end_deal", stock_size=0)
            return False
        if mode == "reshuffle":
            self._rng.shuffle(rest)
            self._stock = rest
        else:
            self._stock = rest[::-1]
        self._discard = self._discard[-1:]
        self._log("stock_exhausted", self._cur, resolution=mode, stock_size=len(self._stock))
        return True

    # --- deals -----------------------------------------------------------------------------

    def _start_deal(self) -> None:
        """Deal the next deal (rules 5-7): the dealer passes clockwise after the first."""
        n = self.num_players
        if self._deal_no:
            self._dealer = (self._dealer + 1) % n
        self._deal_no += 1
        rules = self.rules
        self._wild = rules.wild_ranks[self._deal_no - 1]
        self._meld_rules = MeldRules(self._wild, rules.ace_in_runs == "high_or_low", rules.decks,
                                     rules.set_max, rules.allow_all_wild_melds)
        pack = shuffled_pack(rules.decks, self._rng)
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(rules.cards_per_hand(n) * n):
            hands[(self._dealer + 1 + i) % n].append(pack.pop())
        first = (self._dealer + 1) % n if rules.first_player == "left_of_dealer" else self._dealer
        hands[first].append(pack.pop())
        self._first_player = first
        self._hands = [sorted(h) for h in hands]
        self._stock = pack
        self._discard = []
        self._melds = []
        self._opened = [False] * n
        self._public = [[] for _ in range(n)]
        self._out = []
        self._turn = 1
        self._log("deal", self._dealer, deal_number=self._deal_no, wild_rank=self._wild,
                  first_player=first, hand_sizes=[len(h) for h in self._hands],
                  stock_size=len(self._stock))
        self._begin_turn(first)

    def _begin_turn(self, seat: int) -> None:
        self._cur = seat
        self._drawn = -1
        self._taken_in_hand = False
        self._must_place = -1
        self._must_why = ""
        self._drew_last = False
        self._laid_one = False
        hand = self._hands[seat]
        self._one_card = self.rules.one_card_rule and len(hand) == 1
        self._held = hand[0] if self._one_card else -1
        first_turn = TABLE if self._table_allowed() else DISCARD
        self._phase = first_turn if self._turn == 1 else DRAW

    def _end_deal(self, reason: str) -> None:
        """Score the deal (rule 21), then deal again or end the match (rule 22)."""
        rules = self.rules
        void = reason == "stalled" and rules.stall_resolution == "void"
        points = deal_points(rules, self._hands, self._wild, self._out, void)
        for seat in self._out:
            self._deals_won[seat] += 1
        self._deal_scores.append(points)
        self._scores = [a + b for a, b in zip(self._scores, points)]
        self._log("deal_end", -1, deal_number=self._deal_no, reason=reason,
                  went_out=self._out[0] if self._out else None, out_seats=list(self._out),
                  deal_scores=list(points),
                  scores=list(self._scores))
        if self._deal_no < rules.num_deals:
            self._start_deal()
            return
        self._phase = OVER
        self._cur = -1
        self._log("match_end", -1, scores=list(self._scores), standings=self.standings())

    def _log(self, kind: str, seat: int, /, **data: Any) -> None:
        self._events.append((kind, seat, data))

    # --- views, copies, names ----------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        from referee.games.crazy_rummy.views import build_view

        return build_view(self, seat)

    def clone(self) -> CrazyRummyState:
        """An independent copy, generator state included (see :func:`.position.clone`)."""
        from referee.games.crazy_rummy.position import clone

        return clone(self)

    def fork(self, rng: random.Random) -> CrazyRummyState:
        """A copy to simulate with: the position and counters, no history or events, drawing
        from ``rng``; much cheaper than :meth:`clone`, and it does not replay from its seed."""
        from referee.games.crazy_rummy.position import fork

        return fork(self, rng)

    def redeal_hidden(self, seat: int, rng: random.Random) -> None:
        """Deal anew every card ``seat`` cannot see (see :func:`.position.redeal_hidden`)."""
        from referee.games.crazy_rummy.position import redeal_hidden

        redeal_hidden(self, seat, rng)

    def action_name(self, action: RummyAction) -> str:
        return acts.action_name(action, self._wild)

    def parse_action(self, text: str) -> RummyAction:
        """Read an action's text; ``lay off 8H on meld 2`` is read against the table."""
        return acts.parse_action(text, [m.kind for m in self._melds])

    def action_to_json(self, action: RummyAction) -> dict[str, Any]:
        return acts.action_to_json(action)

    def action_from_json(self, data: Any) -> RummyAction:
        return acts.action_from_json(data)

    @classmethod
    def from_position(cls, rules: CrazyRummyRules, players: int, hands: Sequence[Sequence[int]],
                      **position: Any) -> CrazyRummyState:
        """A state set up at a chosen position: for tests and analysis (see :mod:`.position`)."""
        from referee.games.crazy_rummy.position import arrange

        state = cls(rules, players, position.pop("seed", 0))
        arrange(state, hands, **position)
        return state


_Handler = Callable[[CrazyRummyState, RummyAction], None]
_TABLE_KINDS = (acts.MELD_SET, acts.MELD_RUN, acts.LAY_OFF_SET, acts.LAY_OFF_RUN, acts.EXCHANGE)
_HANDLERS: dict[tuple[int, int], _Handler] = {
    (DRAW, acts.DRAW_STOCK): CrazyRummyState._draw_stock,
    (DRAW, acts.DRAW_DISCARD): CrazyRummyState._draw_discard,
    (TABLE, acts.END_TABLE): CrazyRummyState._end_table,
    (DISCARD, acts.DISCARD): CrazyRummyState._discard_action,
    **{(TABLE, kind): CrazyRummyState._table_action for kind in _TABLE_KINDS},
}
"""Which method plays which action kind in which phase; any other pair is a wrong-phase error."""

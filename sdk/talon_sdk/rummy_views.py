"""The Crazy Rummy view and actions, with the meld finder wired in.

In the table phase the referee cannot list every legal action (``view.decision.complete`` is
False): it lists a canonical few plus ``end table`` and accepts any legal meld, lay-off or
exchange. :meth:`RummyView.meld_options`, :meth:`RummyView.lay_off_options` and
:meth:`RummyView.exchange_options` list what the hand can do, as ready-to-return actions, using
the same rules module as the referee (:mod:`talon_sdk.melds`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

from talon_sdk import melds as M
from talon_sdk.cards import card_name, card_rank, rank_name
from talon_sdk.views import Decision, _decision

(DRAW_STOCK, DRAW_DISCARD, MELD_SET, MELD_RUN, LAY_OFF_SET, LAY_OFF_RUN, EXCHANGE, END_TABLE,
 DISCARD) = range(9)
KIND_NAMES = ("draw_stock", "draw_discard", "meld_set", "meld_run", "lay_off_set", "lay_off_run",
              "exchange", "end_table", "discard")


class RummyAction(NamedTuple):
    """A Crazy Rummy action (layout in ``game.proto``; the engine's own tuple)."""

    kind: int
    cards: tuple[int, ...] = ()
    meanings: tuple[int, ...] = ()
    target: int = -1

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]

    def __str__(self) -> str:
        cards = " ".join(card_name(c) for c in self.cards)
        if self.kind in (DRAW_STOCK, DRAW_DISCARD, END_TABLE):
            return self.kind_name.replace("_", " ")
        if self.kind == DISCARD:
            return f"discard {cards}"
        if self.kind == EXCHANGE:
            return f"exchange {card_name(self.cards[0])} for {card_name(self.cards[1])} on meld {self.target}"
        run = self.kind in (MELD_RUN, LAY_OFF_RUN)
        parts = " ".join(_card_text(c, m, run) for c, m in zip(self.cards, self.meanings))
        if self.kind in (LAY_OFF_SET, LAY_OFF_RUN):
            return f"lay off {parts} on {'run' if run else 'set'} {self.target}"
        return f"{self.kind_name.replace('_', ' ')} {parts}"


def _card_text(card: int, meaning: int, run: bool) -> str:
    """``7H``, or ``2C*=7H`` (run) / ``2C*=7`` (set) for a card standing for another: the
    referee's text form, so a bot may also answer with ``str(action)``."""
    if meaning == (card if run else card_rank(card)):
        return card_name(card)
    return f"{card_name(card)}*={card_name(meaning) if run else rank_name(meaning)}"


def meld_action(meld: M.Meld) -> RummyAction:
    """The action laying down ``meld`` (from :func:`talon_sdk.melds.find_melds`)."""
    return RummyAction(MELD_SET if meld.kind == M.SET else MELD_RUN, tuple(meld.cards), tuple(meld.meanings))


@dataclasses.dataclass(frozen=True)
class RummyView:
    """What your seat knows at a Crazy Rummy decision (fields as in ``CrazyRummyView``)."""

    decision: Decision
    legal_actions: tuple[RummyAction, ...]
    switches: dict[str, Any]
    """Every rule switch with its value (from the match's Welcome)."""
    preset: str
    seat: int
    num_players: int
    deal_number: int
    num_deals: int
    dealer: int
    first_player: int
    current_player: int
    phase: str
    wild_rank: int
    hand: tuple[int, ...]
    discard_pile: tuple[int, ...]
    stock_size: int
    hand_sizes: tuple[int, ...]
    opened: tuple[bool, ...]
    melds: tuple[M.Meld, ...]
    scores: tuple[int, ...]
    deal_scores: tuple[tuple[int, ...], ...]
    deals_won: tuple[int, ...]
    turn: int
    max_turns: int
    one_card_turn: bool
    drawn_card: int | None
    must_place: int | None
    first_turn: bool

    game = "crazy-rummy"

    def meld_rules(self) -> M.MeldRules:
        """The meld rules of this deal."""
        decks = int(self.switches.get("decks", 1))
        set_max = 4 if decks == 1 else int(self.switches.get("double_deck_set_max", 8))
        return M.MeldRules(self.wild_rank, self.switches.get("ace_in_runs") == "high_or_low", decks, set_max,
                           bool(self.switches.get("allow_all_wild_melds", True)))

    def meld_options(self) -> list[RummyAction]:
        """New melds the hand can lay down now (keeping a card to discard); while a card must go
        on the table (``must_place``), only melds holding it; none on a one-card turn."""
        if self.one_card_turn:
            return []
        return [meld_action(m) for m in M.find_melds(self.hand, self.meld_rules(), must_include=self.must_place)]

    def lay_off_options(self) -> list[RummyAction]:
        """Lay-offs of one card onto the table: only once you have opened, and while a card
        must go on the table (``must_place``), only that card."""
        if not self.opened[self.seat]:
            return []
        out = []
        for lay in M.find_lay_offs(self.hand, self.melds, self.meld_rules()):
            if self.must_place is not None and lay.card != self.must_place:
                continue
            kind = LAY_OFF_SET if self.melds[lay.meld].kind == M.SET else LAY_OFF_RUN
            out.append(RummyAction(kind, (lay.card,), (lay.meaning,), lay.meld))
        return out

    def exchange_options(self) -> list[RummyAction]:
        """Wild exchanges the hand can make on the table: only once you have opened, after the
        draw of a turn that is not a one-card turn, and not while a card must go down first.
        (With ``reclaimed_wild_must_be_used`` the referee also refuses an exchange whose wild
        could not go back on the table this turn; this list does not check that.)"""
        if (not self.opened[self.seat] or self.first_turn or self.one_card_turn or self.must_place is not None
                or self.drawn_card is None):
            return []
        return [RummyAction(EXCHANGE, (e.natural, e.wild), (), e.meld)
                for e in M.find_exchanges(self.hand, self.melds, self.meld_rules())]

    def parse_action(self, text: str) -> str:
        """Rummy text is read by the referee: return the text itself (e.g. ``"discard 7H"``)."""
        return text


def rummy_view(request: Any, switches: dict[str, Any] | None = None) -> RummyView:
    """Build the view of a ``DecisionRequest`` whose view is ``crazy_rummy``."""
    v = request.crazy_rummy
    return RummyView(
        decision=_decision(request),
        legal_actions=tuple(RummyAction(a.kind, tuple(a.cards), tuple(a.meanings), a.target)
                            for a in request.legal.crazy_rummy),
        switches=switches or {}, preset=v.preset, seat=v.seat, num_players=v.num_players,
        deal_number=v.deal_number, num_deals=v.num_deals, dealer=v.dealer, first_player=v.first_player,
        current_player=v.current_player, phase=v.phase, wild_rank=v.wild_rank, hand=tuple(v.hand), discard_pile=tuple(v.discard_pile),
        stock_size=v.stock_size, hand_sizes=tuple(v.hand_sizes), opened=tuple(v.opened),
        melds=tuple(M.Meld(M.SET if m.kind == "set" else M.RUN, tuple(m.cards), tuple(m.meanings), m.owner)
                    for m in v.melds),
        scores=tuple(v.scores), deal_scores=tuple(tuple(d.values) for d in v.deal_scores),
        deals_won=tuple(v.deals_won), turn=v.turn, max_turns=v.max_turns, one_card_turn=v.one_card_turn,
        drawn_card=v.drawn_card if v.HasField("drawn_card") else None,
        must_place=v.must_place if v.HasField("must_place") else None, first_turn=v.first_turn,
    )

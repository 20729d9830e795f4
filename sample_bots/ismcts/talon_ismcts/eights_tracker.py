"""What a Crazy Eights seat has learnt about the other hands, from the public events.

The pool of unseen cards needs no tracking: it is the pack less the seat's hand and the play
pile, both in every view. What the events add is **evidence about who holds what**:

* A player who may not draw while able to play (``may_draw_when_able_to_play = off``, as in
  ``house`` and ``french``) and draws, or passes in the play phase, shows that no card they held
  then matched the top card: the suit in force, the top card's rank (unless it is a wild) and
  their wild rank. Every card they held then is excluded from that set.
* Under ``draw_mode = one_may_play`` the engine lets the drawer play the drawn card only when it
  is playable, so what follows a draw tells about that one card: a pass means it was playable
  (and is kept), anything else but its play means it was not.
* Cards drawn later are not covered by earlier evidence: each draw starts a new group (see
  :mod:`.sampler`), so a constraint applies exactly to the cards held when it was learnt.
* ``reveal_last_eight`` makes a player's last card public.
* Where drawing while able to play is allowed, a sensible player still draws (or passes) only
  when nothing plays, so the same exclusion is kept as *likely* (``Group.likely``): the search
  deals within it when it can, and within the hard evidence otherwise. It is dropped for a
  seat as soon as that seat plays a card it excluded (that player draws for other reasons).

When a player plays a card, it leaves the most constrained group that may hold it. Groups of one
hand are nested (older groups carry every later exclusion), so that choice leaves the weakest
constraints on the rest: the truth always stays consistent with them (tests check it on every
preset). If the tracker ever disagrees with a view (a hand size, a card no group allows), it
forgets what it knew about that seat rather than deal impossible hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.games.crazy_eights.rules import CrazyEightsRules
from talon_sdk.cards import FULL_PACK_MASK, RANK_MASKS, SUIT_LETTERS, SUIT_MASKS, parse_card

from .sampler import Group

_SUIT = {letter: i for i, letter in enumerate(SUIT_LETTERS)}
_COUNTED_DRAWS = ("take_penalty", "penalty_draw", "last_card_penalty")


class EightsTracker:
    """Per-hand evidence of one seat, fed every public event in order (see the module doc)."""

    def __init__(self, rules: CrazyEightsRules, seat: int, num_players: int) -> None:
        self.rules = rules
        self.seat = seat
        self.n = num_players
        self.countdown = rules.variant == "countdown"
        self.may_draw = rules.may_draw_when_able_to_play
        self.one_may_play = rules.draw_mode == "one_may_play"
        self.base_wild = rules.rank_of("suit_changer_rank")
        self.groups: list[list[Group]] = [[] for _ in range(num_players)]
        self.wild = [self.base_wild] * num_players
        self.deal_sizes = [0] * num_players
        self.top = -1
        self.follow = 0
        self.top_wild = False
        self.passes = 0
        self._drawer = -1
        self._pending: tuple[int, Group, int] | None = None
        self.resets = 0
        """Times a seat's evidence was dropped because it disagreed with a view (should stay 0)."""

    # --- events --------------------------------------------------------------------------------

    def observe(self, kind: str, seat: int, data: Mapping[str, Any]) -> None:
        """Take in one public event (the engine's kind, seat and data)."""
        pending = self._pending
        if pending is not None and not (seat == pending[0] and kind in ("play", "pass")):
            pending[1].allowed &= ~pending[2]  # the drawn card could not be played
            self._pending = None
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, seat, data)

    def _on_deal(self, seat: int, data: Mapping[str, Any]) -> None:
        sizes = [int(s) for s in data.get("sizes", [])]
        self.deal_sizes = sizes
        self.groups = [[Group(s, sizes[s])] if s != self.seat else [] for s in range(self.n)]
        self.wild = list(sizes) if self.countdown else [self.base_wild] * self.n
        self.passes, self._drawer, self._pending = 0, -1, None
        self.top_wild = False

    def _on_upcard(self, seat: int, data: Mapping[str, Any]) -> None:
        self.top = parse_card(str(data["card"]))
        self.follow, self.top_wild = self.top // 13, False

    def _on_name_suit(self, seat: int, data: Mapping[str, Any]) -> None:
        self.follow, self.top_wild = _SUIT[str(data["suit"])], True

    def _on_play(self, seat: int, data: Mapping[str, Any]) -> None:
        card = parse_card(str(data["card"]))
        if seat != self.seat:
            pending = self._pending
            if pending is not None and pending[0] == seat:
                self._remove_group(seat, pending[1])
                self._pending = None
            else:
                self._remove_card(seat, card)
        suit = data.get("suit")
        self.top = card
        self.top_wild = suit is not None
        self.follow = _SUIT[str(suit)] if suit is not None else card // 13
        self.passes, self._drawer = 0, -1

    def _on_draw(self, seat: int, data: Mapping[str, Any]) -> None:
        self.passes, self._drawer = 0, seat
        if seat == self.seat:
            return
        held = self.size(seat)
        self._exclude(seat, self.match_mask(seat, held), hard=not self.may_draw)
        group = Group(seat, int(data.get("cards", 1)))
        self.groups[seat].append(group)
        if self.one_may_play:
            self._pending = (seat, group, self.match_mask(seat, held + group.count))

    def _on_pass(self, seat: int, data: Mapping[str, Any]) -> None:
        pending = self._pending
        if pending is not None and pending[0] == seat:
            pending[1].allowed &= pending[2]  # declined a drawn card that was playable
            self._pending = None
        elif seat != self.seat:
            self._exclude(seat, self.match_mask(seat, self.size(seat)), hard=not self.may_draw)
        if self._drawer != seat:
            self.passes += 1
        self._drawer = -1

    def _on_counted_draw(self, seat: int, data: Mapping[str, Any]) -> None:
        self.passes = 0
        cards = int(data.get("cards", 0))
        if seat != self.seat and cards > 0:
            self.groups[seat].append(Group(seat, cards))

    def _on_new_hand(self, seat: int, data: Mapping[str, Any]) -> None:
        self.wild[seat] = int(data.get("score", self.wild[seat]))
        self._on_counted_draw(seat, data)

    def _on_last_wild(self, seat: int, data: Mapping[str, Any]) -> None:
        if seat != self.seat:
            self.groups[seat] = [Group(seat, 1, 1 << parse_card(str(data["card"])))]

    # --- evidence ------------------------------------------------------------------------------

    def match_mask(self, seat: int, held: int) -> int:
        """The cards ``seat`` could play on the current top card while holding ``held`` cards
        (the engine's play rule, from public facts only)."""
        rules = self.rules
        wild = RANK_MASKS[self.wild[seat]]
        top_rank = RANK_MASKS[self.top % 13 + 1] if self.top >= 0 else 0
        if self.top_wild:
            mask = SUIT_MASKS[self.follow] | wild | (top_rank if rules.same_rank_on_wild else 0)
        elif rules.eight_must_match:
            mask = SUIT_MASKS[self.follow] | top_rank
        else:
            mask = SUIT_MASKS[self.follow] | top_rank | wild
        if rules.must_finish_on_eight and held == 1:
            mask &= wild
        return mask

    def size(self, seat: int) -> int:
        return sum(g.count for g in self.groups[seat])

    def _exclude(self, seat: int, mask: int, hard: bool = True) -> None:
        for group in self.groups[seat]:
            if hard:
                group.allowed &= ~mask
            group.likely &= ~mask

    def _remove_card(self, seat: int, card: int) -> None:
        groups = self.groups[seat]
        if not any(g.count and (g.likely & g.allowed) >> card & 1 for g in groups):
            for group in groups:  # the sensible-player assumption failed for this seat
                group.likely = FULL_PACK_MASK
        best: Group | None = None
        for group in groups:
            if group.count and group.allowed >> card & 1 and group.likely >> card & 1:
                if best is None or (group.allowed.bit_count(), group.likely.bit_count()) < (
                        best.allowed.bit_count(), best.likely.bit_count()):
                    best = group
        if best is None:
            self._forget(seat, self.size(seat) - 1)
            return
        self._remove_group(seat, best)

    def _remove_group(self, seat: int, group: Group) -> None:
        group.count -= 1
        if group.count <= 0:
            self.groups[seat] = [g for g in self.groups[seat] if g is not group]

    def _forget(self, seat: int, size: int) -> None:
        self.resets += 1
        self.groups[seat] = [Group(seat, size)] if size > 0 else []

    def groups_for(self, hand_sizes: Sequence[int]) -> list[Group]:
        """Copies of every other seat's groups, checked against the view's hand sizes."""
        out: list[Group] = []
        for seat in range(self.n):
            if seat == self.seat:
                continue
            if self.size(seat) != hand_sizes[seat]:
                self._forget(seat, hand_sizes[seat])
            out.extend(g.copy() for g in self.groups[seat] if g.count)
        return out



_HANDLERS = {
    "deal": EightsTracker._on_deal,
    "upcard": EightsTracker._on_upcard,
    "name_suit": EightsTracker._on_name_suit,
    "play": EightsTracker._on_play,
    "draw": EightsTracker._on_draw,
    "pass": EightsTracker._on_pass,
    "new_hand": EightsTracker._on_new_hand,
    "last_card_is_wild": EightsTracker._on_last_wild,
    **{kind: EightsTracker._on_counted_draw for kind in _COUNTED_DRAWS},
}

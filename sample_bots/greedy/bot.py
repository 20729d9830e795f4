"""The greedy bot: a sensible heuristic, no search.

Crazy Eights: keep 8s (wilds) for when nothing else plays; among the other plays shed the
highest card, preferring the suit you hold most of; when playing a wild, name your majority
suit; announce a last card whenever allowed; draw only when nothing plays.
Crazy Rummy: draw from the discard pile when that card fits a meld, else from the stock; lay
down every meld the SDK's meld finder sees as early as possible; discard the highest card
that is in no meld (never a wild).
"""

from talon_sdk import Bot, run
from talon_sdk.cards import card_rank, card_suit


def eights_points(card, wild_rank):
    rank = card_rank(card)
    if rank == wild_rank:
        return 50
    return 10 if rank >= 10 else rank


class GreedyBot(Bot):
    name = "greedy"

    def decide(self, view):
        if view.game == "crazy-eights":
            return self.decide_eights(view)
        return self.decide_rummy(view)

    # --- Crazy Eights -----------------------------------------------------------------------

    def decide_eights(self, view):
        legal = view.legal_actions
        if view.phase == "name_suit":
            best = max(range(4), key=lambda s: view.suit_counts()[s])
            return next(a for a in legal if a.named_suit == best)
        plays = [a for a in legal if a.is_play]
        if not plays:
            return legal[0]  # draw, pass or stop: the engine lists them first
        counts = view.suit_counts()
        wild = view.wild_rank
        normal = [a for a in plays if card_rank(a.card) != wild]
        choices = normal or plays

        def score(action):
            card = action.card
            majority = counts[card_suit(card)]
            named = action.named_suit
            names_majority = named is not None and counts[named] == max(counts)
            return (action.announce, names_majority, eights_points(card, wild), majority, -action)

        if view.phase == "multi_play" and not normal:
            stop = [a for a in legal if a.kind == "stop"]
            if stop:
                return stop[0]
        return max(choices, key=score)

    # --- Crazy Rummy ------------------------------------------------------------------------

    def decide_rummy(self, view):
        legal = view.legal_actions
        if view.phase == "draw":
            take = [a for a in legal if a.kind_name == "draw_discard"]
            if take and view.discard_pile and self.fits_a_meld(view, view.discard_pile[-1]):
                return take[0]
            return next(a for a in legal if a.kind_name == "draw_stock")
        if view.phase == "table":
            melds = [a for a in legal if a.kind_name.startswith("meld")]
            if melds:  # meld early: the biggest meld first
                return max(melds, key=lambda a: (len(a.cards), a))
            lay_offs = [a for a in legal if a.kind_name.startswith("lay_off")]
            if lay_offs:
                return lay_offs[0]
            return next((a for a in legal if a.kind_name == "end_table"), legal[0])
        # discard: the highest card that is not a wild
        def cost(action):
            card = action.cards[0]
            rank = card_rank(card)
            wild = rank == view.wild_rank
            return (not wild, 10 if rank >= 10 else rank, action)

        return max(legal, key=cost)

    @staticmethod
    def fits_a_meld(view, card):
        from talon_sdk import melds

        hand = list(view.hand) + [card]
        return bool(melds.find_melds(hand, view.meld_rules(), leave=1, must_include=card))


if __name__ == "__main__":
    run(GreedyBot)

"""Cards for the referee: the one implementation lives in the SDK (``talon_sdk.cards``).

It lives there so a bot gets exactly the card model the referee uses, while the SDK depends on
nothing but grpcio and protobuf. See that module for the layout of card ids and hand masks.
"""

from talon_sdk.cards import (
    ACE, CLUBS, DIAMONDS, FULL_PACK_MASK, HEARTS, JACK, KING, NUM_CARDS, NUM_RANKS, NUM_SUITS,
    QUEEN, RANK_MASKS, RANK_NAMES, SPADES, SUIT_LETTERS, SUIT_MASKS, SUIT_SYMBOLS, SUIT_WORDS,
    Card, CardError, Rank, Suit, bits, card_name, card_rank, card_suit, card_symbol, cards_name,
    make_card, mask_add, mask_cards, mask_count, mask_distinct, mask_from_cards, mask_remove,
    new_pack, parse_card, parse_cards, parse_rank, parse_suit, rank_name, shuffle,
    shuffled_pack, suit_name,
)

__all__ = [
    "ACE", "CLUBS", "DIAMONDS", "FULL_PACK_MASK", "HEARTS", "JACK", "KING", "NUM_CARDS",
    "NUM_RANKS", "NUM_SUITS", "QUEEN", "RANK_MASKS", "RANK_NAMES", "SPADES", "SUIT_LETTERS",
    "SUIT_MASKS", "SUIT_SYMBOLS", "SUIT_WORDS", "Card", "CardError", "Rank", "Suit", "bits",
    "card_name", "card_rank", "card_suit", "card_symbol", "cards_name", "make_card", "mask_add",
    "mask_cards", "mask_count", "mask_distinct", "mask_from_cards", "mask_remove", "new_pack",
    "parse_card", "parse_cards", "parse_rank", "parse_suit", "rank_name", "shuffle", "shuffled_pack",
    "suit_name",
]

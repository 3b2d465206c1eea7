"""What a discard gives away: the chance the next seat takes it from the pile and goes out.

Nearly half the rounds of two ``normal`` bots end with a go-out on a card just taken from the
pile (144 of 330 in 30 games), so the card a seat throws matters beyond its own hand. Over
samples of the next seat's hand (``engine.bots.reading``), a card's chance is the weighted
share of samples in which that hand, with the card, is fully melded after its best discard.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.draw_values import kept_after, with_card
from engine.seen import Sight

Weighed = Sequence[tuple[tuple[Card, ...], float]]
"""Samples of one seat's hand, each with its weight."""


def next_seat(sight: Sight) -> int | None:
    """The seat that may take this seat's discard first (None when it is alone)."""
    order = [(sight.seat + k) % sight.players for k in range(1, sight.players)]
    following = [s for s in order if s in sight.active]
    return following[0] if following else None


def may_feed(sight: Sight) -> bool:
    """Whether the next seat may go out on this seat's discard: nobody is out yet, and under
    ``first_lap_go_out: false`` the first lap is over by then."""
    return (
        next_seat(sight) is not None
        and sight.out_seat is None
        and (sight.rules.first_lap_go_out or sight.turns_done + 1 >= len(sight.active))
    )


def fed_chance(sight: Sight, card: Card, samples: Weighed) -> float:
    """The weighted share of ``samples`` (of the next seat's hand) that go out on ``card``."""
    forbidden = None if sight.rules.discard_drawn_upcard else card
    total = out = 0.0
    for hand, weight in samples:
        total += weight
        if kept_after(with_card(hand, card), sight.wild, sight.rules, forbidden) == 0:
            out += weight
    return out / total if total else 0.0

"""What an analysis answers: melds, ranked discards and the analysis itself, immutable values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal, TypeVar

from engine.cards import JOKER, Card, Rank, format_card, format_rank

MeldKind = Literal["set", "run"]


class _Value:
    """An immutable value, equal to another of its class with the same fields, shown by them.

    (Written out rather than a frozen dataclass: its generated ``__init__`` runs as interpreted
    Python even in the compiled module, and an analysis builds a dozen of these.)"""

    def _fields(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, _Value)
            and (self._fields() == other._fields())
        )

    def __hash__(self) -> int:
        return hash(self._fields())


class Meld(_Value):
    """A meld in a hand. ``cards`` are in play order (a run from its low end); ``stands_for`` is
    parallel to ``cards``: the card each wild plays as, None for a card that plays as itself (a
    natural card, or a card of the wild rank standing for itself, which counts as no wild)."""

    def __init__(
        self, kind: MeldKind, cards: tuple[Card, ...], stands_for: tuple[Card | None, ...]
    ) -> None:
        self._kind = kind
        self._cards = cards
        self._stands_for = stands_for

    @property
    def kind(self) -> MeldKind:
        return self._kind

    @property
    def cards(self) -> tuple[Card, ...]:
        return self._cards

    @property
    def stands_for(self) -> tuple[Card | None, ...]:
        return self._stands_for

    def _fields(self) -> tuple[object, ...]:
        return self._kind, self._cards, self._stands_for

    def __repr__(self) -> str:
        shown = " ".join(
            format_card(c) + ("" if s is None else f"={format_card(s)}")
            for c, s in zip(self._cards, self._stands_for, strict=True)
        )
        return f"Meld({self._kind} {shown})"


class RankedDiscard(_Value):
    """A card to discard, and the least deadwood of the hand left after discarding it."""

    def __init__(self, card: Card, deadwood_points: int) -> None:
        self._card = card
        self._deadwood_points = deadwood_points

    @property
    def card(self) -> Card:
        return self._card

    @property
    def deadwood_points(self) -> int:
        """The least deadwood of the hand left after discarding ``card``."""
        return self._deadwood_points

    def _fields(self) -> tuple[object, ...]:
        return self._card, self._deadwood_points

    def __repr__(self) -> str:
        return f"RankedDiscard(card={self._card!r}, deadwood_points={self._deadwood_points!r})"


class Analysis(_Value):
    """A hand's best arrangement, its deadwood, and every discard ranked."""

    def __init__(
        self,
        wild: Rank | None,
        melds: tuple[Meld, ...],
        deadwood: tuple[Card, ...],
        deadwood_points: int,
        discards: tuple[RankedDiscard, ...],
    ) -> None:
        self._wild = wild
        self._melds = melds
        self._deadwood = deadwood
        self._deadwood_points = deadwood_points
        self._discards = discards

    @property
    def wild(self) -> Rank | None:
        return self._wild

    @property
    def melds(self) -> tuple[Meld, ...]:
        return self._melds

    @property
    def deadwood(self) -> tuple[Card, ...]:
        return self._deadwood

    @property
    def deadwood_points(self) -> int:
        return self._deadwood_points

    @property
    def discards(self) -> tuple[RankedDiscard, ...]:
        """One per distinct card, the best (least deadwood left) first."""
        return self._discards

    @property
    def melded(self) -> bool:
        return self._deadwood_points == 0

    @property
    def suggested_discard(self) -> Card | None:
        return self._discards[0].card if self._discards else None

    @property
    def can_go_out(self) -> bool:
        return bool(self._discards) and self._discards[0].deadwood_points == 0

    def _fields(self) -> tuple[object, ...]:
        return self._wild, self._melds, self._deadwood, self._deadwood_points, self._discards

    def __repr__(self) -> str:
        return (
            f"Analysis(wild={self._wild!r}, melds={self._melds!r}, deadwood={self._deadwood!r}, "
            f"deadwood_points={self._deadwood_points!r}, discards={self._discards!r})"
        )


CARD_CODES: Final = tuple(format_card(c) for c in range(JOKER + 1))
Document = TypeVar("Document")


def build_document(
    analysis: Analysis,
    document: Callable[..., Document],
    meld: Callable[..., object],
    discard: Callable[..., object],
) -> Document:
    """The analysis as a JSON document, cards and ranks as codes: the one definition of its
    shape. Each object of it is made by calling its constructor with its fields as keywords:
    ``dict`` for plain values (``analysis_document``, which the CLI prints), or the HTTP
    service's wire structs, so a field one side has and the other lacks fails at once."""
    code = CARD_CODES
    suggested = analysis.suggested_discard
    return document(
        wild=None if analysis.wild is None else format_rank(analysis.wild),
        melds=[
            meld(
                kind=m.kind,
                cards=[code[c] for c in m.cards],
                stands_for=[None if s is None else code[s] for s in m.stands_for],
            )
            for m in analysis.melds
        ],
        deadwood=[code[c] for c in analysis.deadwood],
        deadwood_points=analysis.deadwood_points,
        melded=analysis.melded,
        discards=[
            discard(card=code[d.card], deadwood_points=d.deadwood_points) for d in analysis.discards
        ],
        suggested_discard=None if suggested is None else code[suggested],
        can_go_out=analysis.can_go_out,
    )


def analysis_document(analysis: Analysis) -> dict[str, object]:
    """The analysis as a document of plain values (see build_document)."""
    return build_document(analysis, dict, dict, dict)

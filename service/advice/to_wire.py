"""Engine → wire for advice: a hint in ``service.advice.wire``'s shapes."""

from __future__ import annotations

import engine
from engine.advice import DrawHint, Hint
from service.advice.wire import DiscardOptionOut, DrawOptionOut, HintOut
from service.vocabulary.to_wire import card_code, optional_card_code


def hint_to_wire(advice: Hint) -> HintOut:
    if isinstance(advice, DrawHint):
        return HintOut(
            phase="draw",
            draw=advice.advised.source,
            pile=advice.advised.pile,
            options=[
                DrawOptionOut(
                    source=o.source,
                    pile=o.pile,
                    card=optional_card_code(o.card),
                    expected_deadwood=round(o.expected_deadwood, 4),
                    go_out_chance=round(o.go_out_chance, 4),
                )
                for o in advice.options
            ],
            stock_known=advice.stock_known,
            reason=advice.reason,
        )
    return HintOut(
        phase="discard",
        discards=[_discard_out(d) for d in advice.discards],
        suggested=card_code(advice.suggested),
        reason=advice.reason,
    )


def _discard_out(option: engine.advice.DiscardOption) -> DiscardOptionOut:
    return DiscardOptionOut(
        card=card_code(option.card),
        deadwood_points=option.deadwood_points,
        go_out=option.go_out,
    )

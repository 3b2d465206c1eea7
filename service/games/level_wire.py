"""A computer player's level on the wire: in a seat spec (``BotLevelName``, which the service
checks itself, so that a wrong one is answered with the levels there are) and in a view
(``BotLevel``). Both are ``engine.bots.LEVELS``."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from msgspec import Meta

from engine import bots

BotLevel = Literal["easy", "normal", "hard", "expert"]
"""The levels a game seats, as a type: ``engine.bots.LEVELS`` written out for the type checker
(tests/service/vocabulary/test_fixed_values.py fails when the two differ)."""
_LEVEL_NAMES: Final = tuple(bots.LEVELS)


def _one_of(names: tuple[str, ...]) -> str:
    """``a``, ``b`` or ``c``, as the document's prose lists choices."""
    quoted = [f"`{name}`" for name in names]
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


BotLevelName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=32,
        description=(
            f"{_one_of(_LEVEL_NAMES)}, each measurably stronger than the one "
            "before; any other level is a 422 listing these."
        ),
        # The document lists the levels; the service checks them itself, so that a wrong one
        # is answered with the levels there are.
        extra_json_schema={"enum": list(_LEVEL_NAMES)},
    ),
]
"""A level as a seat spec names it: checked by the service, so that a wrong one is answered
with the levels there are (``service.tables.waiting_tables.seat_spec``)."""

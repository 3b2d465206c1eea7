"""Variants of ``expert`` for the arena: ``expert:later=0.6:others=1.3`` plays ``expert`` with
those fields of its ``Style`` changed, so a setting is screened head to head against the level
without editing its defaults. Only the arena seats them (``python -m engine arena``); games
offer the levels alone.
"""

from __future__ import annotations

from dataclasses import fields, replace
from functools import partial
from typing import Any

from engine.bots.expert import EXPERT_STYLE, Style, expert
from engine.bots.levels import Level
from engine.errors import UnknownBotLevel

SEPARATOR = ":"
"""Between the level and each ``field=value`` (a comma already separates the arena's seats)."""


def style_of(spec: str, levels: tuple[str, ...]) -> Style:
    """The ``Style`` a variant spec names; ``UnknownBotLevel`` for another level, a field
    ``Style`` does not have, or a value not of the field's type."""
    name, *settings = spec.split(SEPARATOR)
    kinds = {f.name: type(getattr(EXPERT_STYLE, f.name)) for f in fields(Style)}
    changes: dict[str, Any] = {}  # each value of its field's type, checked above
    for setting in settings:
        key, _, text = setting.partition("=")
        kind = kinds.get(key.strip())
        if name.strip() != "expert" or kind is None:
            raise UnknownBotLevel(spec, levels)
        try:
            value = kind(text.strip())
        except ValueError:
            raise UnknownBotLevel(spec, levels) from None
        if value < 0:
            raise UnknownBotLevel(spec, levels)
        changes[key.strip()] = value
    return replace(EXPERT_STYLE, **changes)


def variant(spec: str, levels: tuple[str, ...]) -> Level:
    """The player a variant spec names (see ``style_of``)."""
    return partial(expert, style=style_of(spec, levels))


__all__ = ["SEPARATOR", "style_of", "variant"]

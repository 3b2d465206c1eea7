"""One exception class per rule broken; each carries the offending value in its message.

The service maps these to problem-details responses in one place, so every class here says
which part of the input or which rule it is about.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on bad input or an illegal action."""


class CardCodeError(EngineError, ValueError):
    """A card or rank code could not be parsed."""

    def __init__(self, code: object, expected: str) -> None:
        self.code = code
        super().__init__(f"invalid card code {code!r}: {expected}")


class RulesError(EngineError, ValueError):
    """A rules value is unknown, out of range, or combines options that cannot go together."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


class HandError(EngineError, ValueError):
    """A hand is empty, too large, or holds a card the rules' pack cannot contain."""

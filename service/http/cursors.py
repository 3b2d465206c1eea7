"""A list's cursor: where a page ended, as an opaque string (the lobby's ``next_cursor``, a
player's games').

It is the position of the page's last entry (a number, such as an expiry or a creation time,
and an id) in URL-safe base64, so a client passes it back as it is and never builds one. A
cursor that is not one is a 422 naming ``cursor``. In the lobby, a table that changes between
two pages moves to the front (its expiry is renewed): it is not shown twice, but a client that
reads on may miss it until it reads from the start again.
"""

from __future__ import annotations

import base64
import binascii

from service.http.problems import InvalidField

Position = tuple[float, str]
"""An entry's place in a list ordered by the number, then the id."""

_SEPARATOR = "~"
_MAX_CURSOR = 200


def cursor_of(position: Position) -> str:
    number, some_id = position
    text = f"{number!r}{_SEPARATOR}{some_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def position_of(cursor: str) -> Position:
    try:
        if len(cursor) > _MAX_CURSOR:
            raise ValueError(cursor)
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        number, separator, some_id = text.partition(_SEPARATOR)
        if not separator or not some_id:
            raise ValueError(text)
        return float(number), some_id
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidField(
            "cursor: not a cursor of this list; pass a `next_cursor` as it is", field="cursor"
        ) from None

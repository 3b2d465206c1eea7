"""The lobby's cursor: where a page of ``GET /v1/tables`` ended, as an opaque string.

It is the position of the page's last table (``service.tables.index.LobbyPosition``: its expiry
and game id) in URL-safe base64, so a client passes it back as it is and never builds one. A
cursor that is not one is a 422 naming ``cursor``. A table that changes between two pages moves
to the front of the lobby (its expiry is renewed): it is not shown twice, but a client that
reads on may miss it until it reads from the start again.
"""

from __future__ import annotations

import base64
import binascii

from service.http.problems import InvalidField
from service.tables.index import LobbyPosition

_SEPARATOR = "~"
_MAX_CURSOR = 200


def cursor_of(position: LobbyPosition) -> str:
    expiry, game_id = position
    text = f"{expiry!r}{_SEPARATOR}{game_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def position_of(cursor: str) -> LobbyPosition:
    try:
        if len(cursor) > _MAX_CURSOR:
            raise ValueError(cursor)
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        expiry, separator, game_id = text.partition(_SEPARATOR)
        if not separator or not game_id:
            raise ValueError(text)
        return float(expiry), game_id
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidField(
            "cursor: not a cursor of this lobby; pass a `next_cursor` as it is", field="cursor"
        ) from None

"""The service reaches Litestar only through its public hooks: these tests fail if Litestar moves
under one of them (a private name used, or a hook no longer called the way the service relies on).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
from litestar import Litestar, Request, post
from litestar.params import JSONBody
from litestar.testing import TestClient

from service.http.strict_body import STRICT_BODY_KEY, StrictBodyRequest, decode_body_strictly

SERVICE = Path(__file__).resolve().parents[3] / "service"
PRIVATE = re.compile(r"\blitestar(?:\.\w+)*\._\w+|\bfrom litestar[\w.]* import \(?\s*_\w+")


def test_no_service_module_names_a_private_litestar_member() -> None:
    assert [p.name for p in SERVICE.rglob("*.py") if PRIVATE.search(p.read_text())] == []
    assert PRIVATE.search("from litestar.utils.scope._state import X")  # the check can fail


class Seat(msgspec.Struct, forbid_unknown_fields=True):
    seat: int


def test_a_handler_receives_exactly_the_body_the_strict_hook_decoded() -> None:
    """``StrictBodyRequest.json`` is how the strictly decoded body reaches the handler: Litestar
    must still read a JSON body through ``Request.json`` and pass a value of the declared type
    through unchanged."""
    seen: list[bool] = []

    @post("/", sync_to_thread=False, status_code=200)
    def handler(data: JSONBody[Seat], request: Request[Any, Any, Any]) -> None:
        seen.append(data is request.state[STRICT_BODY_KEY])

    app = Litestar([handler], before_request=decode_body_strictly, request_class=StrictBodyRequest)
    with TestClient(app) as client:
        assert client.post("/", content=b'{"seat": 1.0}').status_code == 200
    assert seen == [True]

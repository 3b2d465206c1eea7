"""``Idempotency-Key``: the one mechanism that makes every creating or changing request safe to
retry (``../shared/API.md``, "Every request that creates is safe to retry").

A request with a key is answered once: its first answer (status, body, and so any token it handed
out) is saved **in the same atomic step as its effect**, beside the record it changed, by the
store that holds that record (a game's create or compare-and-set commit, a sheet's). A retry
loads the record with the saved answer (one round trip) and replays it without doing the work
again; if the first attempt and its retry race on two instances, exactly one commit wins and the
loser finds the winner's answer saved under the key. A create whose answer must survive the
create itself takes its id from the key (``derived_id``), so a retry meets the existing record.

Each route saves under its own name of the key (``Retry.stored_key``): the route's scope (its
operation id, or the older name its ``opt`` declares: ``route_policy.retry_scope_of``;
handlers make their ``Retry`` with ``request_retry``), the caller's token hash when the request
has one (a key is a seat's, not a game's), then the client's key. A
key sent again with another body is a 422 naming the header. Saved answers live as long as
``IDEMPOTENCY_TTL`` (a day by default) and no longer than the record they sit beside.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from dataclasses import dataclass
from typing import Annotated, Any, Final

import msgspec
from litestar import Request, Response
from litestar.params import HeaderParameter

from service.http.problems import IdempotencyKeyReused
from service.http.route_policy import retry_scope_of
from service.operations import metrics

AnyRequest = Request[Any, Any, Any]

IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=1,
        max_length=128,
        description=(
            "Any unique string per request (a UUID): a retry with the same key and body, on "
            "any instance and for 24 hours, returns the first answer (status, body, any token "
            "it handed out) and does nothing again; the same key with another body is a 422."
        ),
    ),
]

_encoder: Final = msgspec.json.Encoder()


class SavedAnswer(msgspec.Struct, frozen=True, array_like=True):
    """The first answer to a request sent with an Idempotency-Key, as the store keeps it."""

    fingerprint: bytes
    """SHA-256 of the request's decoded body: a key reused for another request is refused."""
    body: bytes
    """The answer's JSON, exactly as first sent (as the store keeps it: deflated if
    ``deflated``)."""
    status: int = 200
    location: str = ""
    """The ``Location`` header of a 201, empty for none."""
    deflated: bool = False
    """Whether ``body`` is kept deflated (zlib): a seat's view is kept for a day with every
    keyed action, and deflates to some 40% (a four-seat view: 1,544 bytes to 650, in 37 µs).
    Answers saved before this field replay as they are."""


DEFLATE_LEVEL: Final = 1
"""zlib's fastest level: nearly the size of the default level at half its time."""


_saved_decoder: Final = msgspec.msgpack.Decoder(SavedAnswer)
_saved_encoder: Final = msgspec.msgpack.Encoder()


@dataclass(frozen=True, slots=True)
class Retry:
    """A request sent with an Idempotency-Key: under which name its answer is saved, and what
    it asked."""

    stored_key: str
    fingerprint: bytes

    def saved(self, body: bytes, status: int = 200, location: str = "") -> tuple[str, bytes]:
        """What the store writes with the effect: (stored key, encoded answer)."""
        deflated = zlib.compress(body, DEFLATE_LEVEL)
        answer = SavedAnswer(self.fingerprint, deflated, status, location, deflated=True)
        return self.stored_key, _saved_encoder.encode(answer)

    def replayed(self, data: bytes) -> SavedAnswer:
        """The saved first answer, if this request is the one saved under its key; 422 else."""
        saved = _saved_decoder.decode(data)
        if saved.fingerprint != self.fingerprint:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was first sent with a different body: use a new key for a "
                "new request",
                field="Idempotency-Key",
            )
        metrics.ACTIONS_REPLAYED.inc()
        if saved.deflated:
            body = zlib.decompress(saved.body)
            return msgspec.structs.replace(saved, body=body, deflated=False)
        return saved


def retry_of(
    scope: str, key: str | None, body: object = None, token: str | None = None
) -> Retry | None:
    """The request's ``Retry``, or None without a key. ``scope`` is the route's
    (``RetryOf``), ``token`` the caller's seat or sheet token (keys are then the caller's
    own)."""
    if key is None:
        return None
    owner = "" if token is None else hashlib.sha256(token.encode()).hexdigest()[:32]
    fingerprint = hashlib.sha256(b"" if body is None else _encoder.encode(body)).digest()
    return Retry(f"{scope}:{owner}:{key}", fingerprint)


def request_retry(
    request: AnyRequest,
    key: str | None,
    body: object = None,
    token: str | None = None,
) -> Retry | None:
    """A keyed route's ``Retry`` (``retry_of``) under the route's scope (``route_policy``: its
    operation id, or the older name it declares), or None without a key. The handler takes the
    key as its ``idempotency_key: IdempotencyKey`` parameter, a header like any other, not a
    dependency (``service.http.auth`` says why)."""
    return retry_of(retry_scope_of(request.route_handler), key, body, token)


def derived_id(retry: Retry) -> str:
    """The id of what a create with this key makes: the same on every instance, for every retry
    (96 bits, as a random id)."""
    digest = hashlib.sha256(f"create/{retry.stored_key}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


def encoded(answer: object) -> bytes:
    """An answer's JSON, as saved and as sent."""
    return _encoder.encode(answer)


def answered(saved: SavedAnswer) -> Response[Any]:
    """The HTTP answer of a saved (or first) answer."""
    headers = {"Location": saved.location} if saved.location else None
    return Response(
        saved.body, status_code=saved.status, media_type="application/json", headers=headers
    )

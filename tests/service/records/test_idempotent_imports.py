"""``Idempotency-Key`` on ``POST /v1/records`` (``service.http.idempotency``, as every create):
a retry with the same key and body answers the first import again and keeps no second record;
the same key with another body is a 422 naming the header. In memory, and on Redis with two
apps (two instances) sharing it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.records.store import record_key
from service.settings import Settings
from tests.service.games.test_games_api import assert_problem
from tests.service.records.long_records import long_record_text

Client = TestClient[Litestar]
TEXT = {"Content-Type": "text/plain"}


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def pair(request: pytest.FixtureRequest) -> Iterator[tuple[Client, Client]]:
    """The first attempt goes to one, its retry to the other (one app in memory; two apps on
    one Redis)."""
    if request.param == "memory":
        with TestClient(create_app(Settings())) as only:
            yield only, only
        return
    settings: Settings = request.getfixturevalue("redis_settings")
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two


def kept(client: Client, record_id: str) -> bool:
    """Whether the instance's records store holds a record under ``record_id``."""
    records = client.app.state["services"].records
    return client.blocking_portal.call(records.get, record_key(record_id)) is not None


def test_a_retried_import_answers_the_first_record_and_keeps_no_other(
    pair: tuple[Client, Client],
) -> None:
    one, two = pair
    key = {"Idempotency-Key": str(uuid.uuid4()), **TEXT}
    text = long_record_text(3)
    first = one.post("/v1/records", content=text, headers=key)
    assert first.status_code == 201, first.text
    again = two.post("/v1/records", content=text, headers=key)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    # Without a key, or with another, the same record is another import.
    other = two.post("/v1/records", content=text, headers=TEXT)
    assert other.status_code == 201, other.text
    assert other.json()["record_id"] != first.json()["record_id"]
    assert kept(two, first.json()["record_id"])
    assert kept(two, other.json()["record_id"])
    # ``kept`` can say no: a made-up id holds nothing.
    assert not kept(two, "A" * 16)


def test_the_same_key_with_another_record_is_a_422_naming_the_header(
    pair: tuple[Client, Client],
) -> None:
    one, two = pair
    key = {"Idempotency-Key": str(uuid.uuid4()), **TEXT}
    assert one.post("/v1/records", content=long_record_text(3), headers=key).status_code == 201
    refused = two.post("/v1/records", content=long_record_text(4), headers=key)
    assert_problem(refused, 422, "idempotency-key-reused", field="Idempotency-Key")


def test_the_same_key_for_a_record_that_does_not_replay_keeps_nothing(
    pair: tuple[Client, Client],
) -> None:
    """A refused import saves no answer: the key is free for the record meant."""
    one, two = pair
    key = {"Idempotency-Key": str(uuid.uuid4()), **TEXT}
    broken = one.post("/v1/records", content="[Game", headers=key)
    assert broken.status_code == 422, broken.text
    assert two.post("/v1/records", content=long_record_text(3), headers=key).status_code == 201

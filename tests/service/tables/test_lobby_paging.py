"""``GET /v1/tables`` a page at a time: ``limit`` and ``cursor``, ``next_cursor``; the pages of
both table indexes (memory, Redis)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from litestar import Litestar
from litestar.testing import TestClient

from service.tables.index import LOBBY_LIMIT, MemoryTableIndex, TableIndex
from service.tables.redis_index import RedisTableIndex
from tests.service.conftest_redis import delete_prefixed


@pytest.fixture(params=["memory", "redis"])
def new_index(
    request: pytest.FixtureRequest, key_prefix: str
) -> Iterator[Callable[[], TableIndex]]:
    """Makes the index inside the test's event loop (a Redis client is bound to its loop)."""
    if request.param == "memory":
        yield lambda: MemoryTableIndex(game_ttl=600)
        return
    url = request.getfixturevalue("redis_url")
    yield lambda: RedisTableIndex(aioredis.Redis.from_url(url), key_prefix=key_prefix, game_ttl=600)
    delete_prefixed(url, key_prefix)


def test_index_pages_follow_each_other_also_across_ties(
    new_index: Callable[[], TableIndex],
) -> None:
    """Every entry once, newest first, however the pages fall; entries listed in one
    millisecond (the same expiry on Redis) included."""

    async def scenario() -> None:
        index = new_index()
        for i in range(7):
            await index.list_table(f"g{i}", f"entry {i}".encode())
        whole, last = await index.page(100, None)
        assert last is None
        assert sorted(whole) == sorted(f"entry {i}".encode() for i in range(7))
        assert whole == await index.listed()
        for size in (1, 2, 3, 6, 7):
            read: list[bytes] = []
            after = None
            while True:
                entries, after = await index.page(size, after)
                assert len(entries) <= size
                read += entries
                if after is None:
                    break
            assert read == whole, size

    asyncio.run(scenario())


def _listed_table(client: TestClient[Litestar], name: str) -> str:
    created = client.post(
        "/v1/games", json={"players": [{"name": name}, {"open": True}], "listed": True}
    )
    assert created.status_code == 201, created.text
    return str(created.json()["game_id"])


def _lobby(client: TestClient[Litestar], **params: Any) -> Any:
    answer = client.get("/v1/tables", params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_pages_follow_each_other_to_the_last(client: TestClient[Litestar]) -> None:
    lobby_client = client
    created = [_listed_table(lobby_client, f"P{i}") for i in range(5)]
    whole = _lobby(lobby_client)
    assert "next_cursor" not in whole
    newest_first = [table["game_id"] for table in whole["tables"]]
    assert sorted(newest_first) == sorted(created)

    pages: list[list[str]] = []
    params: dict[str, Any] = {"limit": 2}
    while True:
        page = _lobby(lobby_client, **params)
        pages.append([table["game_id"] for table in page["tables"]])
        if "next_cursor" not in page:
            break
        params = {"limit": 2, "cursor": page["next_cursor"]}
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [g for p in pages for g in p] == newest_first


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": LOBBY_LIMIT + 1}, "limit"),
        ({"cursor": "not a cursor"}, "cursor"),
        ({"cursor": "x" * 201}, "cursor"),
    ],
)
def test_a_bad_page_is_a_422_naming_it(
    client: TestClient[Litestar], params: Any, field: str
) -> None:
    answer = client.get("/v1/tables", params=params)
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["field"] == field


def test_the_document_states_the_page_parameters(client: TestClient[Litestar]) -> None:
    document = client.get("/schema/openapi.json").json()
    parameters = {p["name"]: p for p in document["paths"]["/v1/tables"]["get"]["parameters"]}
    assert parameters["limit"]["schema"]["maximum"] == LOBBY_LIMIT
    assert "cursor" in parameters
    assert "next_cursor" in document["components"]["schemas"]["Lobby"]["properties"]

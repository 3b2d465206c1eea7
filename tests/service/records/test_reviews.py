"""Reviews, each computed once however many ask (issue 44, finding 2): concurrent requests on
an instance share one computation; a review claimed elsewhere answers 202 with ``Retry-After``
and its status until it is kept; and a review says where it stopped when the game is longer
than its budget."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from prometheus_client import REGISTRY

from engine.records import GameReview, OverBudget, record_json, record_of
from service.app import create_app
from service.app.services import Services
from service.records.store import claim_key, review_key
from service.records.to_wire import review_to_wire
from service.settings import Settings
from tests.engine.records_example import example_game
from tests.waiting import eventually

Client = TestClient[Litestar]
ASKED_AT_ONCE = 9


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A finished game's whole record (docs/records.md's example), to import."""
    return record_json(record_of(example_game()))


def reviews_computed() -> float:
    return REGISTRY.get_sample_value("three_thirteen_reviews_computed_total") or 0.0


def reviewed(client: Client | httpx.Client, path: str) -> httpx.Response:
    """The review's answer once it is no longer being computed (202): what a client does,
    asking again after ``Retry-After``."""
    return eventually(
        lambda: client.get(path), f"the review at {path}", until=lambda r: r.status_code != 202
    )


def imported(client: Client, record: dict[str, Any]) -> str:
    response = client.post("/v1/records", json=record)
    assert response.status_code == 201, response.text
    record_id: str = response.json()["record_id"]
    return record_id


def test_requests_at_once_for_one_review_share_one_computation(record: dict[str, Any]) -> None:
    """Nine requests for one uncomputed review computed it nine times (answers after 30 to
    265 s); now they wait on one computation, and each answer is the review or its status."""
    with TestClient(create_app(Settings())) as client:
        path = f"/v1/records/{imported(client, record)}/review"
        before = reviews_computed()
        with ThreadPoolExecutor(ASKED_AT_ONCE) as pool:
            answers = list(pool.map(lambda _: client.get(path), range(ASKED_AT_ONCE)))
        final = reviewed(client, path)
        assert final.status_code == 200, final.text
        assert {a.status_code for a in answers} <= {200, 202}
        assert all(a.json() == final.json() for a in answers if a.status_code == 200)
        assert reviews_computed() - before == 1


def test_a_review_claimed_elsewhere_is_202_with_retry_after_until_it_is_kept(
    record: dict[str, Any],
) -> None:
    """Another instance holds the claim: this one does not compute it too, and says when to ask
    again; once the claim is given back (that instance failed), the next request computes it."""
    app = create_app(Settings())
    services: Services = app.state["services"]
    with TestClient(app) as client:
        record_id = imported(client, record)
        claim = claim_key(review_key("record", record_id))
        assert asyncio.run(services.records.claim(claim, 300))
        path = f"/v1/records/{record_id}/review"
        pending = client.get(path)
        assert pending.status_code == 202
        assert pending.headers["retry-after"] == "2"
        assert pending.json() == {"status": "computing", "retry_after": 2}
        asyncio.run(services.records.release(claim))
        final = reviewed(client, path)
        assert final.status_code == 200, final.text
        assert final.json()["over_budget"] is None
        assert final.json()["decisions"]


def test_a_review_that_stopped_at_its_budget_says_where() -> None:
    stopped = GameReview((), (), (), OverBudget(budget=10, reviewed=42, versions=900))
    wire = review_to_wire(stopped)
    assert wire.over_budget is not None
    assert (wire.over_budget.budget, wire.over_budget.reviewed, wire.over_budget.versions) == (
        10,
        42,
        900,
    )
    assert review_to_wire(GameReview((), (), ())).over_budget is None

"""What one client may make the service keep of records (issue 44, finding 4: one client filled
1-2 GB an hour with imports kept a week): each import counts as a creation and its bytes
against the client's daily ``IMPORT_BYTES_PER_DAY``, refused or kept; a retry of a keyed import
spends nothing; and the answer says how long the record is kept."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from engine.records import record_json, record_of
from service.app import create_app
from service.settings import Settings
from tests.engine.records_example import example_game
from tests.service.games.test_games_api import assert_problem


def test_a_client_past_its_daily_bytes_of_records_is_refused_with_retry_after() -> None:
    record: dict[str, Any] = record_json(record_of(example_game()))
    with TestClient(create_app(Settings())) as probe:
        size = len(probe.post("/v1/records", json=record).request.content)
    settings = Settings(import_bytes_per_day=2 * size, game_ttl=3600)
    with TestClient(create_app(settings)) as client:
        first = client.post("/v1/records", json=record, headers={"Idempotency-Key": "one"})
        assert first.status_code == 201, first.text
        assert first.json()["expires_in"] == 3600
        again = client.post("/v1/records", json=record, headers={"Idempotency-Key": "one"})
        assert again.json() == first.json()  # a retry is answered, and spends nothing
        assert client.post("/v1/records", json=record).status_code == 201
        refused = client.post("/v1/records", json=record)
        problem = assert_problem(refused, 429, "import-quota")
        assert "IMPORT_BYTES_PER_DAY" in problem["detail"]
        assert 0 < int(refused.headers["retry-after"]) <= 86400
        # Past the budget a record is refused before anything is parsed, broken or not.
        assert (
            client.post(
                "/v1/records", content=b"[Game", headers={"Content-Type": "text/plain"}
            ).status_code
            == 429
        )


def test_0_turns_the_budget_off_and_it_is_on_out_of_the_box() -> None:
    assert Settings().import_bytes_per_day > 0
    record: dict[str, Any] = record_json(record_of(example_game()))
    with TestClient(create_app(Settings(import_bytes_per_day=0))) as client:
        assert {client.post("/v1/records", json=record).status_code for _ in range(3)} == {201}

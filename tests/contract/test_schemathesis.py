"""The API against its own OpenAPI document, with schemathesis, in process.

Every operation goes through the documented examples and fuzzing (schema-valid and
schema-invalid requests, ten of each kind per operation), and the stateful phase follows the
OpenAPI links from a created game into its operations. The coverage phase (boundary and invalid
values of every keyword) runs in the live run (tests/contract/test_schemathesis_live.py), every
phase as docs/contract.md's command: here it would be the same cases a second time, and most
of this module's time. Every
check runs on every response: no 5xx, status codes and content types as documented, bodies
matching their schemas, invalid requests refused, valid ones accepted.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from typing import Any, Final

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test
from litestar.testing import TestClient
from schemathesis.config import SchemathesisConfig
from schemathesis.core.transport import Response

from service.app import create_app
from service.settings import Settings
from tests.contract.schemathesis_hooks import CONTRACT_APP_KEY  # registers NDJSON, credentials
from tests.waiting import WAIT_SECONDS, eventually

# Statuses a schema-valid request may still earn: a game id or token that is not real (404/401),
# a challenge that is not the caller's (403), or a request that conflicts with the game's state
# (409), or that breaks a rule the schema cannot express (422: a card not in this hand or pack,
# rules options that clash). As schemathesis.toml says.
_VALID_BUT_REFUSED = ["2xx", "401", "403", "404", "409", "422"]

CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 313,
        # Each request's bound, the suite's own generous one (schemathesis's default is 10 s,
        # which a costly analysis can take on a loaded machine): a hung request still fails the
        # case. No max_response_time check: how fast an answer comes is the benchmarks' business.
        "request-timeout": WAIT_SECONDS,
        "generation": {"mode": "all", "max-examples": 10, "database": "none"},
        "checks": {"positive_data_acceptance": {"expected-statuses": _VALID_BUT_REFUSED}},
        # As schemathesis.toml says why: a batch's invalid entry is its own line in a 200.
        "operations": [
            {
                "include-operation-id": "analyseHands",
                "generation": {"mode": "positive"},
            },
            # Streams end once they have sent what there is (map_query does it where it runs;
            # the coverage phase's cases are given it here). The player's is opened with a
            # real key (tests/contract/schemathesis_hooks.py), and would stay open.
            *(
                {"include-operation-id": stream, "parameters": {"query.idle_timeout": 0}}
                for stream in ("getGameEvents", "getMyEvents")
            ),
        ],
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": False},  # in the live run: see the module's docstring
            "fuzzing": {"enabled": True},
            # Only the document's own links: inferred ones (every 201's Location leads to every
            # operation on the game, with generated tokens) would crowd out the playable ones.
            # GameWorkflow.before_call keeps the games and sheets it creates playable.
            # Positive data: the stateful phase is for following links into games and sheets
            # (GameWorkflow.before_call keeps what it creates playable); fuzzing covers the
            # negative cases of every operation.
            "stateful": {
                "enabled": True,
                "max-steps": 12,
                "generation": {"mode": "positive"},
                "inference": {"algorithms": []},
                # The links carry the seats' real tokens, which schemathesis takes for generated
                # ones: a seat's own turn would read as "invalid auth accepted" (as in
                # schemathesis.toml; the other phases check every secured operation refuses).
                "checks": {"ignored_auth": {"enabled": False}},
            },
        },
    }
)


@schemathesis.hook
def before_load_schema(ctx: Any, raw_schema: dict[str, Any]) -> None:
    """Only the links this run plays (``PLAYED_LINKS``); the hooks send each link's body as it
    is (tests/contract/schemathesis_hooks.py)."""
    for item in raw_schema.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values():
                links = response.get("links", {})
                for name in [name for name in links if name not in PLAYED_LINKS]:
                    del links[name]


PLAYED_LINKS: Final = frozenset(
    {
        *("GetPublicView", "GetSeatView", "GetLog", "FollowEvents", "ClaimOpenSeat"),
        *("FirstSeatDraws", "SecondSeatDraws", "DiscardFirstCard", "DrawAgain", "GetSeatLog"),
        *("GetSeatViewAfter", "AskForRematch", "GetRematchSeatView", "ClaimNextOpenSeat"),
        *("ClaimedSeatDraws", "ClaimedSeatLeaves", "ClaimedSeatStreamUrl", "GetClaimedSeatView"),
        *("EnterFirstRound", "ExportSheet", "GetSheet", "PrintSheet", "EnterNextRound"),
        *("GetSheetAfter", "GetMe", "GetPlayer", "ListMyGames"),
    }
)
"""The links this run's stateful phase follows: into games and score sheets, whose play it
checks below. The others (challenges, seeks, tournaments, webhooks) are followed by the live
run (test_schemathesis_live.py); here they drew the steps away from the games."""


UNLIMITED: Final = Settings(
    app_keys=(("contract", CONTRACT_APP_KEY),),
    rate_limit_per_minute=0,
    creations_per_day=0,
    claims_per_day=0,
    invitations_per_hour=0,
    bot_games_per_client=0,
)
"""A fuzzer is one client sending thousands of requests a minute: the limits (tested in
tests/service/http/test_client_limits.py) would answer most of them 429."""

app = create_app(UNLIMITED)
schema = schemathesis.openapi.from_asgi("/schema/openapi.json", app, config=CONFIG)

# The stateful phase plays on an app of its own, so that what it meets is the same however the
# machine is loaded and whatever else ran before it: the fuzzed games' bots (and clocks) play on
# in the background of the first app for as long as its lifespan runs.
stateful_app = create_app(UNLIMITED)
stateful_schema = schemathesis.openapi.from_asgi(
    "/schema/openapi.json", stateful_app, config=CONFIG
)


def map_query(ctx: Any, query: dict[str, Any] | None) -> dict[str, Any] | None:
    # An event stream stays open while the game is idle; keep each one short under test, also
    # when the generated request leaves idle_timeout out (the default is minutes).
    streaming = ctx.operation is not None and ctx.operation.label.endswith("/events")
    if streaming and (query is None or "idle_timeout" not in query):
        return {**(query or {}), "idle_timeout": 0}
    if query is not None and "idle_timeout" in query:
        query["idle_timeout"] = 0
    return query


@schema.hook
def map_body(ctx: Any, body: Any) -> Any:
    # A game made without a seed is shuffled from the OS's random source, so whether the first
    # or the second seat is on turn would differ between runs of the same generated steps, and
    # Hypothesis rightly calls such a state machine flaky. Seeded games behave the same each run.
    creating = ctx.operation is not None and ctx.operation.label == "POST /v1/games"
    # The same for a score sheet's first dealer.
    sheet = ctx.operation is not None and ctx.operation.label == "POST /v1/scoresheets"
    if sheet and isinstance(body, dict) and body.get("first_dealer") is None:
        return {**body, "first_dealer": 0}
    if not creating or not isinstance(body, dict):
        return body
    if body.get("seed") is None:
        body = {**body, "seed": 3}
    if body.get("seed_key") is None:
        # A seed deals the same game again only with its key: one chosen by the generated body
        # itself (a replay meets the same game), and one of ten, so that games start on either
        # seat and the links' draws by the first and by the second seat are both accepted.
        digit = zlib.crc32(json.dumps(body, sort_keys=True).encode()) % 10
        body = {**body, "seed_key": f"contract-tests-seed-k{digit}"}
    return body


for _schema in (schema, stateful_schema):
    _schema.hook(map_query)
    _schema.hook(map_body)


@schema.parametrize()
def test_every_operation_conforms(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate()


def test_each_operation_is_a_test_item_of_its_own(request: pytest.FixtureRequest) -> None:
    """pytest-xdist (`make test`) tells items apart by node id: were two operations' ids the same,
    it would run only one of them (pytest 9.2 gives schemathesis' items one id; pyproject.toml
    keeps pytest below it)."""
    ids = [
        item.nodeid
        for item in request.session.items
        if "test_every_operation_conforms" in item.name
    ]
    assert len(set(ids)) == len(ids) > 20


# (operationId, status) of every call the stateful phase made.
STATEFUL_CALLS: Counter[tuple[str, int]] = Counter()
# The speed games it created.
SPEED_GAMES: set[str] = set()
SPEED_RULES: Final[dict[str, Any]] = {"preset": "classic", "turns": "speed"}


BOTS_SETTLE_SECONDS: Final = 60.0
"""How long a step waits, at most, for the bots it put on turn to have moved."""


def wait_for_the_bots() -> None:
    """Wait until no game of the stateful app has a bot moving in it (a seat that left is
    played by a bot; bots choose in every speed call), so the next step meets the game as the
    bots leave it, not as far as they happen to have got: a Hypothesis replay must meet the
    same state."""
    bots = stateful_app.state.services.bots
    eventually(lambda: not bots.driving, "the bots to stop moving", seconds=BOTS_SETTLE_SECONDS)


class GameWorkflow(stateful_schema.as_state_machine()):  # type: ignore[misc]
    def before_call(self, case: schemathesis.Case[Any]) -> None:
        # The hooks make the stateful phase's games and sheets playable by the links
        # (``playable_by_links``); here, besides, its games have no clocks and are mostly speed
        # games. The other phases still send every generated game, valid or not.
        operation = case.operation.definition.raw.get("operationId")
        if operation == "createGame" and isinstance(case.body, dict):
            # No clocks: a turn clock or a caller's time running out mid-run would make the
            # state depend on how fast the machine runs the steps.
            case.body.pop("turn_seconds", None)
            case.body.pop("call_seconds", None)
            # About three games in four are speed games, so the same links (both seats draw from
            # the stock, then a seat discards a card of its hand) post choices in its calls.
            # Chosen by the generated body itself: Hypothesis replays a case to shrink it, and a
            # replay must meet the same game (a counter across cases would make it flaky).
            if zlib.crc32(json.dumps(case.body, sort_keys=True).encode()) % 4:
                case.body["rules"] = SPEED_RULES
                case.body["call_seconds"] = 3600

    def after_call(self, response: Response, case: schemathesis.Case[Any]) -> None:
        wait_for_the_bots()
        operation = str(case.operation.definition.raw.get("operationId"))
        STATEFUL_CALLS[operation, response.status_code] += 1
        if operation == "createGame" and response.status_code == 201:
            created = response.json()
            if created["view"]["rules"]["turns"] == "speed":
                SPEED_GAMES.add(created["game_id"])


# Derandomized: which generated steps reach an accepted turn must not change from run to run
# (the assertions below check that some do).
WORKFLOW_SETTINGS = settings(
    GameWorkflow.TestCase.settings,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def test_the_stateful_phase_plays_games_through_the_links() -> None:
    """The links lead the stateful phase from created games into accepted turns and views, from
    tables to claimed seats, and into speed games' calls."""
    STATEFUL_CALLS.clear()
    SPEED_GAMES.clear()
    run_state_machine_as_test(GameWorkflow, settings=WORKFLOW_SETTINGS)
    print("stateful calls (operationId, status): count", sorted(STATEFUL_CALLS.items()))
    assert STATEFUL_CALLS["createGame", 201] > 0, STATEFUL_CALLS
    assert STATEFUL_CALLS["applyAction", 200] > 0, STATEFUL_CALLS
    assert STATEFUL_CALLS["getGame", 200] > 0, STATEFUL_CALLS
    assert STATEFUL_CALLS["getGameLog", 200] > 0, STATEFUL_CALLS
    assert STATEFUL_CALLS["createScoreSheet", 201] > 0, STATEFUL_CALLS
    assert STATEFUL_CALLS["enterRound", 200] > 0, STATEFUL_CALLS
    assert STATEFUL_CALLS["getScoreSheet", 200] > 0, STATEFUL_CALLS
    # ... and from tables with open seats to seats claimed by invite code, and on to their views.
    assert STATEFUL_CALLS["claimInvite", 201] > 0, STATEFUL_CALLS
    # ... and into speed games' calls: the games' own logs hold the choices they accepted.
    choices = speed_choices_logged(SPEED_GAMES)
    print(f"speed games: {len(SPEED_GAMES)}, choices they accepted: {choices}")
    assert choices > 0, STATEFUL_CALLS


def speed_choices_logged(games: set[str]) -> int:
    """The choices (entries of a seat, not the caller's) in the public logs of ``games``."""
    client = TestClient(stateful_app)
    choices = 0
    for game_id in games:
        answer = client.get(f"/v1/games/{game_id}/log")
        assert answer.status_code == 200, answer.text
        choices += sum(1 for entry in answer.json()["entries"] if entry["seat"] >= 0)
    return choices

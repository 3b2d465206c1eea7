"""Saved ``Idempotency-Key`` answers are kept deflated (a day of a seat's views, with every keyed
action) and replayed exactly as first sent; answers saved before they were deflated replay as
they are; every keyed route saves under the name it always has, so saved answers stay found."""

from __future__ import annotations

import json

import msgspec

from service.app import create_app
from service.http.idempotency import retry_of
from service.http.route_policy import retry_scope_of
from service.settings import Settings

VIEW = json.dumps(
    {"players": [{"name": f"seat {n}", "score": 0, "hand_size": 11} for n in range(4)]}
).encode()


def test_an_answer_is_kept_deflated_and_replayed_as_sent() -> None:
    retry = retry_of("act", "key-1", {"type": "draw"}, token="t")
    assert retry is not None
    key, data = retry.saved(VIEW, 200, "")
    fingerprint, kept, status, location, deflated = msgspec.msgpack.decode(data)
    assert (fingerprint, status, location, deflated) == (retry.fingerprint, 200, "", True)
    assert len(kept) < len(VIEW) / 2
    replayed = retry.replayed(data)
    assert (replayed.body, replayed.status, replayed.location) == (VIEW, 200, "")
    assert kept != VIEW
    assert key == retry.stored_key


def test_an_answer_saved_before_deflating_replays_as_it_is() -> None:
    retry = retry_of("createGame", "key-2", {"players": []})
    assert retry is not None
    older = msgspec.msgpack.encode([retry.fingerprint, VIEW, 201, "/v1/games/g"])
    replayed = retry.replayed(older)
    assert (replayed.body, replayed.status, replayed.location) == (VIEW, 201, "/v1/games/g")


SAVED_UNDER = {
    "createGame": "createGame",
    "claimInvite": "claimInvite",
    "leaveGame": "leaveGame",
    "rematchGame": "rematchGame",
    "applyAction": "act",
    "createScoreSheet": "createScoreSheet",
    "enterRound": "enterRound",
    "importRecord": "importRecord",
    "createChallenge": "createChallenge",
    "acceptChallenge": "acceptChallenge",
    "declineChallenge": "declineChallenge",
    "cancelChallenge": "cancelChallenge",
    "createSeek": "createSeek",
    "createTournament": "createTournament",
    "joinTournament": "joinTournament",
    "leaveTournament": "leaveTournament",
}
"""Each keyed operation and the scope its answers are saved under (the first part of the stored
key): a change would lose every answer saved before it."""
UNSAVED = {"createStreamUrl"}
"""Takes an Idempotency-Key, as every POST may, but saves nothing: its answer follows from the
seat and its token."""


def test_every_keyed_route_saves_under_the_scope_it_always_has() -> None:
    handlers = [
        handler
        for route in create_app(Settings()).routes
        for handler in getattr(route, "route_handlers", ())
        if "idempotency_key" in handler.parsed_fn_signature.parameters
        and handler.operation_id not in UNSAVED
    ]
    assert {h.operation_id: retry_scope_of(h) for h in handlers} == SAVED_UNDER

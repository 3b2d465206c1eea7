"""Reviews, each computed once however many ask for it, on whichever instance they ask.

A review is computed in the worker processes (``review_game``: linear in the game's length, at
most ``engine.records.REVIEW_BUDGET`` analyses) and kept beside the games. Its computation is
claimed in the store first (``RecordStore.claim``, a key with a lease: of any number of
instances, one takes it) and runs as a task of its own (``ReviewFlights``): every request for it
on this instance waits on that one task, for ``REVIEW_WAIT`` seconds at most. Past that, and on
every other instance while the claim holds, the answer is ``202`` with ``Retry-After`` and the
review's status (``ReviewPending``). A computation that fails gives its claim back; one whose
instance died leaves it to run out after ``CLAIM_SECONDS``, and the next request claims again.
"""

from __future__ import annotations

import asyncio
from typing import Final

import msgspec

from engine import game
from engine.records import review_game
from service.games import lifecycle as game_flow
from service.http.problems import GameNotFinished
from service.operations import metrics
from service.records.deps import RecordServices
from service.records.logic import RecordNotFound
from service.records.store import claim_key, record_key, review_key
from service.records.to_wire import review_to_wire
from service.records.wire import ReviewOut, ReviewPending

REVIEW_WAIT: Final = 2.0
"""Seconds a request waits for a review computed on this instance before it answers 202: most
reviews are done by then, so most readers get theirs in one request."""
CLAIM_SECONDS: Final = 300.0
"""A review's claim: longer than a review within its budget takes on a loaded worker."""
RETRY_AFTER_SECONDS: Final = 2
_encoder: Final = msgspec.json.Encoder()
_decoder: Final = msgspec.json.Decoder(ReviewOut)


async def game_review(services: RecordServices, game_id: str) -> ReviewOut | ReviewPending:
    loaded = await game_flow.load_game(services, game_id)
    if loaded.state.status != "finished":
        raise GameNotFinished(f"game {game_id!r} is still played: it is reviewed once it is over")
    return await _review(services, review_key("game", game_id), game.dumps(loaded.state))


async def record_review(services: RecordServices, record_id: str) -> ReviewOut | ReviewPending:
    stored = await services.records.get(record_key(record_id))
    if stored is None:
        raise RecordNotFound(f"no record {record_id!r} (it may have expired)")
    return await _review(services, review_key("record", record_id), stored)


async def _review(
    services: RecordServices, key: str, state_json: bytes
) -> ReviewOut | ReviewPending:
    """The review kept under ``key``; or the one this instance computes, if it is done within
    ``REVIEW_WAIT``; else its status."""
    kept = await services.records.get(key)
    if kept is not None:
        return _decoder.decode(kept)
    flight = services.reviews.get(key)
    if flight is None:
        if not await services.records.claim(claim_key(key), CLAIM_SECONDS):
            return ReviewPending(retry_after=RETRY_AFTER_SECONDS)  # another instance has it
        flight = services.reviews.start(key, _computed(services, key, state_json))
    # ``wait`` never cancels the flight: a request that gives up (its client went away, or the
    # wait ran out) leaves it running for the others.
    done, _ = await asyncio.wait({flight}, timeout=REVIEW_WAIT)
    if not done:
        return ReviewPending(retry_after=RETRY_AFTER_SECONDS)
    return _decoder.decode(flight.result())


async def _computed(services: RecordServices, key: str, state_json: bytes) -> bytes:
    """The review computed in a worker process and kept; its claim given back if that fails
    (every worker busy, the store out), so that the next request may try again at once."""
    try:
        computed = await services.analyses.run(reviewed, state_json)
        metrics.REVIEWS_COMPUTED.inc()
        return await services.records.put_new(key, computed)
    except BaseException:
        await asyncio.shield(services.records.release(claim_key(key)))
        raise


def reviewed(state_json: bytes) -> bytes:
    """The review of a stored game state, as the JSON of ``ReviewOut`` (run in a worker)."""
    return _encoder.encode(review_to_wire(review_game(game.loads(state_json))))

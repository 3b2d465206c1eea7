"""``GET /v1/games/{id}/record`` of a long finished game (some 20,000 actions), as it was built
at every read and as it is kept once built (``service.records.finished``), side by side in one
run (``python -m tests.benchmarks record_reads``).

"built" does what the route did at every read: the game from the process' decoded cache, its
record (``engine.records.record_of``), the page, the JSON or text. "kept" is the route's work
now, the record kept by an earlier read: the whole record in either form from the records store
(memory here), a page from the process' decoded record. Wall time per read on the event loop,
the median of several reads, in process; the ratio is built / kept. Sending the body is in
neither column: a kept whole record is one read of the store (here a lookup in memory; on Redis,
one round trip carrying its bytes).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Final

import msgspec

from engine import game
from service.app import create_app
from service.app.services import Services
from service.games import records as game_records
from service.records import finished, logic
from service.settings import Settings
from tests.service.records.long_records import long_finished_game

STALLS: Final = 10_000
"""Upcards drawn and discarded again before the game is played out: some 20,000 actions."""
READS: Final = 7
_encoder: Final = msgspec.json.Encoder()


async def built(
    services: Services, game_id: str, *, text: bool, since: int, limit: int | None
) -> bytes:
    """The read as the route made it before records were kept."""
    record, next_since = logic.page(await logic.game_record(services, game_id), since, limit)
    if text:
        return logic.record_text(record, next_since).encode()
    return _encoder.encode(logic.record_body(record, next_since))


async def median_ms(read: Callable[[], Awaitable[bytes]]) -> float:
    await read()  # the first read of each: decoded caches filled, the record kept
    times = []
    for _ in range(READS):
        start = time.perf_counter()
        await read()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def measure() -> None:
    state = long_finished_game(STALLS)
    services: Services = create_app(Settings()).state["services"]
    game_id = game_records.new_game_id()
    parts = game.dumps_parts(state, game.Sealed(0, 0))
    record = game_records.GameRecord(
        state=parts.head, token_hashes=(b"",) * len(state.players), created=0.0
    )
    await services.store.create(
        game_id, game_records.encode_record(record), segments=game_records.segments_of(parts)
    )
    print(f"a finished game of {state.version} actions")
    print(f"{'read':<22}{'built ms':>10}{'kept ms':>10}{'ratio':>11}")
    for name, text, since, limit in (
        ("whole, JSON", False, 0, None),
        ("whole, text", True, 0, None),
        ("page of 10, JSON", False, state.version // 2, 10),
    ):
        asked: dict[str, Any] = {"text": text, "since": since, "limit": limit}
        before = await median_ms(partial(built, services, game_id, **asked))
        after = await median_ms(partial(finished.record_answer, services, game_id, **asked))
        print(f"{name:<22}{before:>10.1f}{after:>10.3f}{before / after:>10.0f}x")


def main() -> None:
    asyncio.run(measure())


if __name__ == "__main__":
    main()

"""A game's notices wake its streams only for what they have not loaded: a new subscription on
Redis reads the notices the game's event stream still holds, and waking on them made every new
stream load its game once more for nothing (and end, when Redis was down just then)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from service.streams.events import Reached, wake_on_notices


async def woken_by(notices: list[bytes], reached: Reached | None) -> bool:
    async def sent() -> AsyncIterator[bytes]:
        for notice in notices:
            yield notice

    woken = asyncio.Event()
    await wake_on_notices(sent(), woken, reached)
    return woken.is_set()


def test_a_notice_wakes_a_stream_only_past_the_version_it_loaded() -> None:
    reached = Reached()
    reached.version = 5
    assert not asyncio.run(woken_by([b"3", b"4", b"5"], reached))  # the history, read again
    assert asyncio.run(woken_by([b"5", b"6"], reached))
    assert asyncio.run(woken_by([b"not a version"], reached))
    assert asyncio.run(woken_by([b"1"], None))  # a player's stream: every notice
    assert asyncio.run(woken_by([b"0"], Reached()))  # nothing loaded yet: every notice

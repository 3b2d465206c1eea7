"""A game's segments in every store: appended by create and commit, never rewritten, read from
any index on, and left alone by a commit that loses its race."""

from __future__ import annotations

import asyncio
import uuid

from tests.service.storage.test_store import StoreKind, store_kind  # noqa: F401  # the stores' fixture


def test_segments_are_appended_and_read_from_an_index(store_kind: StoreKind) -> None:  # noqa: F811
    async def check() -> None:
        store = store_kind.make()
        game = uuid.uuid4().hex
        await store.create(game, b"head 0", segments=[b"p-first-pack"])
        assert await store.commit(game, 0, b"head 1")
        assert await store.commit(game, 1, b"head 2", segments=[b"c-chunk", b"p-pack"])
        assert not await store.commit(game, 1, b"lost", segments=[b"c-never"])
        whole = await store.load(game)
        assert whole is not None
        assert (whole.version, whole.record) == (2, b"head 2")
        assert whole.segments == (b"p-first-pack", b"c-chunk", b"p-pack")
        rest = await store.load(game, segments_from=2, recall="no-such-key")
        assert rest is not None
        assert (rest.version, rest.record, rest.segments, rest.saved) == (
            2,
            b"head 2",
            (b"p-pack",),
            None,
        )
        none_left = await store.load(game, segments_from=3)
        assert none_left is not None
        assert none_left.segments == ()
        await store.close()

    asyncio.run(check())

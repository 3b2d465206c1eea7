"""One suite for the ratings' store: in memory, a single Redis, and a Redis Cluster. A game's
result changes its players' ratings exactly once, however many clients apply it at once; games
of the same players applied concurrently each see the other's entries (a stale read is read
again, never lost); boards rank the established players apart from the provisional ones, page
by page and around a player; and folding the journal (the rebuild) gives the live numbers, bit
for bit."""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rules import Rules
from service.ratings import model
from service.ratings.model import PROVISIONAL_GAMES, Entry, GameResult, Seated
from service.ratings.rebuild import differences, folded, write
from service.ratings.redis_store import RedisRatingStore
from service.ratings.store import HISTORY_KEPT, Board, Change, MemoryRatingStore, RatingStore
from service.ratings.updates import apply_result
from tests.service.conftest_redis import StoreFamily

Stores = Callable[[int], Awaitable[list[RatingStore]]]
"""Clients of one shared ratings store: ``n`` of them (instances)."""
Check = Callable[[Stores], Awaitable[None]]


@pytest.fixture
def on_stores(store_family: StoreFamily) -> Callable[[Check], None]:
    """Runs a check against fresh stores of the family, in an event loop of its own."""
    return functools.partial(
        store_family.run,
        memory=MemoryRatingStore,
        on_redis=lambda client, prefix: RedisRatingStore(client, key_prefix=prefix),
    )


def a_result(
    game_id: str, players: list[str], places: list[int] | None = None, key: str = "classic"
) -> GameResult:
    return GameResult(
        game_id=game_id,
        key=key,
        seats=tuple(Seated(p, p.title(), p.startswith("bot-")) for p in players),
        places=tuple(range(len(players)) if places is None else places),
        finished=1.0,
    )


async def entry_of(store: RatingStore, key: str, player_id: str) -> Entry | None:
    [data] = await store.entries(key, [player_id])
    return None if data is None else model.decode_entry(data)


def test_a_game_applied_by_many_clients_at_once_counts_once(on_stores: Callable[..., None]) -> None:
    async def check(stores: Stores) -> None:
        clients = await stores(4)
        result = a_result("g1", ["ann", "bob", "cat"])
        outcomes = await asyncio.gather(*(apply_result(c, result) for c in clients * 2))
        assert sorted(outcomes) == ["applied"] + ["done"] * 7
        for player in ("ann", "bob", "cat"):
            entry = await entry_of(clients[0], "classic", player)
            assert entry is not None
            assert entry.games == 1
        assert await clients[1].is_applied("classic", "g1")
        assert not await clients[1].is_applied("classic", "g2")
        assert not await clients[1].is_applied("classic:speed", "g1")
        assert len(await clients[2].journal("classic")) == 1

    on_stores(check)


def test_concurrent_games_of_the_same_players_each_count(on_stores: Callable[..., None]) -> None:
    """Ann plays twenty games at once with others: each reads her entry, and the store refuses
    the writes of those whose read went stale, which read again: she ends with twenty games,
    and her numbers are the journal's fold."""

    async def check(stores: Stores) -> None:
        clients = await stores(3)
        results = [a_result(f"g{n}", ["ann", f"p{n}"], [n % 2, 1 - n % 2]) for n in range(20)]
        await asyncio.gather(
            *(apply_result(clients[n % 3], result) for n, result in enumerate(results))
        )
        ann = await entry_of(clients[0], "classic", "ann")
        assert ann is not None
        assert ann.games == 20
        assert await differences(clients[1], ["classic"]) == []

    on_stores(check)


def test_a_stale_read_and_an_applied_game_write_nothing(on_stores: Callable[..., None]) -> None:
    async def check(stores: Stores) -> None:
        [store] = await stores(1)
        result = a_result("g1", ["ann", "bob"])
        after = model.rated(result, [None, None])
        points = model.points_of(result, after)
        changes = [
            Change(s.player_id, None, model.encode(e), e.rating, e.provisional, model.encode(p))
            for s, e, p in zip(result.seats, after, points, strict=True)
        ]
        assert await store.apply("classic", "g1", changes, model.encode(result)) == "applied"
        assert await store.apply("classic", "g1", changes, model.encode(result)) == "done"
        other = a_result("g2", ["ann", "bob"])
        assert await store.apply("classic", "g2", changes, model.encode(other)) == "stale"
        assert not await store.is_applied("classic", "g2")
        assert len(await store.journal("classic")) == 1
        assert len(await store.history("classic", "ann")) == 1  # nor a second point

    on_stores(check)


def test_each_game_adds_a_point_to_its_players_histories_the_last_hundred_kept(
    on_stores: Callable[..., None],
) -> None:
    """Ann plays 105 rated games, one at a time: her history holds the last 100, newest first,
    each the entry its game left her with and her place in it; Bob's one game is his one
    point; another key's history is apart."""

    async def check(stores: Stores) -> None:
        [store] = await stores(1)
        played = HISTORY_KEPT + 5
        for n in range(played):
            opponent = "bob" if n == 0 else f"p{n}"
            await apply_result(store, a_result(f"g{n}", ["ann", opponent], [n % 2, 1 - n % 2]))
        points = [model.decode_point(data) for data in await store.history("classic", "ann")]
        assert [p.game_id for p in points] == [f"g{n}" for n in reversed(range(5, played))]
        assert [p.games for p in points] == list(reversed(range(6, played + 1)))
        assert [p.place for p in points] == [n % 2 for n in reversed(range(5, played))]
        ann = await entry_of(store, "classic", "ann")
        assert ann is not None
        assert (points[0].mu, points[0].sigma, points[0].rating) == (ann.mu, ann.sigma, ann.rating)
        [bob] = [model.decode_point(data) for data in await store.history("classic", "bob")]
        assert (bob.game_id, bob.place, bob.seats, bob.games) == ("g0", 1, 2, 1)
        assert await store.history("online", "ann") == []

    on_stores(check)


def test_boards_rank_established_players_apart_page_by_page(
    on_stores: Callable[..., None],
) -> None:
    """Eight players play ten games each (established); a ninth plays one (provisional)."""

    async def check(stores: Stores) -> None:
        [store] = await stores(1)
        players = [f"p{n}" for n in range(8)]
        rng = random.Random(5)
        for game in range(40):
            table = rng.sample(players, 2)
            await apply_result(store, a_result(f"g{game}", table))
        for game in range(40, 80):  # everyone to at least ten games
            low = []
            for player in players:
                entry = await entry_of(store, "classic", player)
                assert entry is not None
                if entry.games < PROVISIONAL_GAMES:
                    low.append(player)
            if len(low) < 2:
                low = [*low, *(p for p in players if p not in low)][:2]
            await apply_result(store, a_result(f"g{game}", low[:2]))
        await apply_result(store, a_result("new", ["newcomer", "p0"]))
        entries = {p: await entry_of(store, "classic", p) for p in players}
        assert all(e is not None and not e.provisional for e in entries.values())
        best_first = sorted(players, key=lambda p: (entries[p].rating, p), reverse=True)  # type: ignore[union-attr]

        top = await store.page("classic", False, 0, 3)
        assert top is not None
        assert (top.total, top.start) == (8, 0)
        assert [p for p, _ in top.entries] == best_first[:3]
        last = await store.page("classic", False, 6, 3)
        assert last is not None
        assert [p for p, _ in last.entries] == best_first[6:]
        around = await store.page("classic", False, best_first[4], 3)
        assert around is not None
        assert (around.start, [p for p, _ in around.entries]) == (3, best_first[3:6])
        at_end = await store.page("classic", False, best_first[7], 4)
        assert at_end is not None
        assert at_end.start == 4
        assert await store.page("classic", False, "newcomer", 3) is None
        provisional = await store.page("classic", True, "newcomer", 3)
        assert provisional is not None
        assert [p for p, _ in provisional.entries] == ["newcomer"]
        empty = await store.page("five-crowns", False, 0, 3)
        assert empty is not None
        assert (empty.total, empty.entries) == (0, [])
        mine = await store.player_entries("p0", model.RATING_KEYS)
        assert list(mine) == ["classic"]

    on_stores(check)


def test_the_rebuild_finds_and_writes_a_lost_rating(on_stores: Callable[..., None]) -> None:
    async def check(stores: Stores) -> None:
        [store] = await stores(1)
        for n in range(5):
            await apply_result(store, a_result(f"g{n}", ["ann", "bob", "cat"], [n % 3, 1, 2]))
        assert await differences(store) == []
        wrong = Entry(1.0, 1.0, 99, "Ann", False)
        lost = Change("ann", None, model.encode(wrong), wrong.rating, False)
        await store.replace("classic", [lost])
        [difference] = await differences(store)
        assert (difference.player_id, difference.kept) == ("ann", wrong)
        await write(store, [difference])
        assert await differences(store) == []

    on_stores(check)


# -- the model, property-tested -----------------------------------------------------------------

results = st.lists(
    st.tuples(
        st.lists(
            st.sampled_from(["ann", "bob", "cat", "dan", "eve", "bot-hard"]),
            min_size=2,
            max_size=5,
            unique=True,
        ),
        st.lists(st.integers(0, 3), min_size=5, max_size=5),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(results, st.randoms(use_true_random=False))
def test_live_updates_in_any_interleaving_equal_the_fold_of_the_journal(
    games: list[tuple[list[str], list[int]]], rng: random.Random
) -> None:
    """However concurrent applications interleave, the entries kept are the fold of the journal
    in the order it holds, bit for bit, and every game is in it once."""
    made = [
        a_result(f"g{n}", players, places[: len(players)])
        for n, (players, places) in enumerate(games)
    ]

    async def run() -> tuple[MemoryRatingStore, list[GameResult]]:
        store = MemoryRatingStore()
        shuffled = rng.sample(made, len(made))
        await asyncio.gather(*(apply_result(store, r) for r in shuffled + shuffled[:2]))
        return store, [model.decode_result(d) for d in await store.journal("classic")]

    store, journal = asyncio.run(run())
    assert sorted(r.game_id for r in journal) == sorted(r.game_id for r in made)
    rebuilt = folded(journal)
    kept = asyncio.run(store.entries("classic", list(rebuilt)))
    assert [None if d is None else model.decode_entry(d) for d in kept] == list(rebuilt.values())


@given(st.lists(st.integers(-50, 400), min_size=2, max_size=8))
def test_places_share_ties_and_order_by_total(totals: list[int]) -> None:
    places = model.places_of(_FinalState(tuple(totals)))  # type: ignore[arg-type]
    for a, total_a in enumerate(totals):
        for b, total_b in enumerate(totals):
            assert (places[a] < places[b]) == (total_a < total_b)
    assert min(places) == 0


class _FinalState:
    """What ``places_of`` reads of a finished game: its totals, and no tie-break winners."""

    winners = None

    def __init__(self, totals: tuple[int, ...]) -> None:
        self.totals = totals


def test_the_winner_of_a_tie_break_ranks_first_and_a_win_raises_a_rating() -> None:
    state = _FinalState((30, 30, 45))
    state.winners = (1,)  # type: ignore[assignment]
    assert model.places_of(state) == (1, 0, 2)  # type: ignore[arg-type]
    result = a_result("g", ["ann", "bob", "cat"], [1, 0, 2])
    ann, bob, cat = model.rated(result, [None, None, None])
    assert bob.mu > ann.mu > cat.mu
    assert all(e.games == 1 and e.provisional for e in (ann, bob, cat))
    assert bob.rating == bob.mu - 3 * bob.sigma


def test_only_a_preset_s_own_rules_have_a_rating_key() -> None:
    assert model.rating_key(Rules.from_spec("classic")) == "classic"
    assert model.rating_key(Rules.from_spec({"preset": "online", "turns": "speed"})) == (
        "online:speed"
    )
    assert model.rating_key(Rules.from_spec({"preset": "classic", "jokers": 2})) is None
    assert set(model.RATING_KEYS) >= {"classic", "classic:speed", "five-crowns"}
    assert model.built_in_player("bot-expert") == "expert"
    assert model.built_in_player("bot-nobody") is None
    assert model.built_in_player("pAnn") is None


def best_first_reference(ratings: dict[str, float]) -> list[str]:
    """A board's order, plainly: the highest rating first, equal ratings the greater id first
    (as Redis orders a sorted set read in reverse)."""
    return [p for p, _ in sorted(ratings.items(), key=lambda i: (i[1], i[0]), reverse=True)]


@given(
    st.lists(
        st.tuples(
            st.sampled_from([f"p{n}" for n in range(12)]),
            st.one_of(st.none(), st.sampled_from([-3.0, 0.0, 1.5, 2.0, 7.25])),
        ),
        max_size=60,
    ),
    st.integers(0, 14),
    st.integers(1, 6),
)
def test_the_memory_board_keeps_the_reference_order(
    changes: list[tuple[str, float | None]], start: int, count: int
) -> None:
    """Ratings put and dropped in any order: every rank and every slice is the reference's."""
    board, reference = Board(), dict[str, float]()
    for player_id, rating in changes:
        if rating is None:
            board.drop(player_id)
            reference.pop(player_id, None)
        else:
            board.put(player_id, rating)
            reference[player_id] = rating
    order = best_first_reference(reference)
    assert board.ratings == reference
    assert board.best_first(start, count) == order[start : start + count]
    for rank, player_id in enumerate(order):
        assert board.rank(player_id) == rank
    assert board.rank("nobody") is None

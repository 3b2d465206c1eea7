"""``public_log`` in slices (``since`` and ``until``), as a resumed stream reads a long game: the
slices laid end to end are the whole log, for every viewer."""

from __future__ import annotations

from engine.game import Discard, Draw, apply, new_game, public_log


def test_slices_of_the_log_are_the_log() -> None:
    state = new_game(["a", "b", "c"], "classic", 17)
    while state.version < 300:
        turn = state.turn
        state = apply(state, turn, Draw("stock", None))
        state = apply(state, turn, Discard(state.hands[turn][0], False))
    for seat in (None, 0, 1, 2):
        whole = public_log(state, seat)
        assert len(whole) == state.version
        for size in (1, 16, 63, 64, 65, 200):
            sliced = [
                entry
                for start in range(0, state.version, size)
                for entry in public_log(state, seat, since=start, until=start + size)
            ]
            assert sliced == list(whole), size
        assert public_log(state, seat, since=100, until=100) == ()
        assert public_log(state, seat, since=10, until=20) == whole[10:20]

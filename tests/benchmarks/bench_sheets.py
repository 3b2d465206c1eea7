"""A score sheet read, against the replays it holds (``python -m tests.benchmarks sheets``;
``--quick`` for fewer samples).

Issue 32, finding 2: round 1 entered as a double naught again and again, then each read of the
sheet (``engine.scoresheet.restore`` from the stored rounds, then its wire form) cost 7/30/86/
289 ms at 100/500/1,000/2,000 replays: quadratic, because each stored deal was entered on the
whole sheet so far. A sheet now keeps ``MAX_REPLAYS`` a round; sheets stored before are still
read, so the read must be linear in the deals. The table gives the read before (every deal
entered on the whole sheet so far, as ``restore`` did) and now, per deal, side by side.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence

from engine import scoresheet
from engine.scoresheet import Entry, PointsEntry, Sheet
from service.sheets.to_wire import sheet_to_wire

QUICK = "--quick" in sys.argv
SAMPLES = 3 if QUICK else 7
PLAYERS = ["Ann", "Bob", "Cy"]
RULES = {"preset": "classic", "double_naughts": True}
Rounds = Sequence[tuple[int, int | None, Sequence[Entry]]]


def stored_rounds(replays: int) -> Rounds:
    naughts = [PointsEntry(0, 0), PointsEntry(1, 0), PointsEntry(2, 0)]
    counted = [PointsEntry(0, 0), PointsEntry(1, 4), PointsEntry(2, 7)]
    return [(1, 0, naughts)] * replays + [(1, 0, counted)]


def restored_as_before(rounds: Rounds) -> Sheet:
    """What ``restore`` did: each deal entered on the whole sheet so far."""
    sheet = scoresheet.new_sheet(PLAYERS, RULES, 0)
    for round_number, out_seat, entries in rounds:
        sheet = scoresheet._entered(sheet, round_number, out_seat, entries)
    return sheet


def restored_now(rounds: Rounds) -> Sheet:
    return scoresheet.restore(PLAYERS, RULES, 0, rounds)


def read_ms(restored: Callable[[Rounds], Sheet], rounds: Rounds) -> float:
    """One read as ``GET /v1/scoresheets/{id}`` makes it: rebuilt, then its wire form."""
    times = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        sheet_to_wire("s", 1, restored(rounds))
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    print(f"a sheet's read (restore and wire form), median of {SAMPLES}, ms")
    print(f"{'replays':>8} {'before':>9} {'now':>8} {'before/now':>11} {'now µs/deal':>12}")
    for replays in (scoresheet.MAX_REPLAYS, 100, 500, 1000, 2000):
        rounds = stored_rounds(replays)
        assert restored_now(rounds) == restored_as_before(rounds)
        before, now = read_ms(restored_as_before, rounds), read_ms(restored_now, rounds)
        per_deal = now * 1000 / len(rounds)
        print(f"{replays:>8} {before:>9.2f} {now:>8.2f} {before / now:>10.1f}x {per_deal:>12.1f}")


if __name__ == "__main__":
    main()

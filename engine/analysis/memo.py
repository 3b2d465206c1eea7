"""A memo of native ints: values by key in open addressing over two vectors of unboxed ints
(a dictionary would box every key and value). It holds a search's results by state key and a
context's candidate runs by their key (see formats).
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine.analysis.formats import ENTRY_BOUND, move_of

MEMO_SLOTS: Final = 128
"""A memo's first size (a hand of 14 cards takes about 60 states)."""
NO_KEYS: Final = vec[i64]([-1] * MEMO_SLOTS)
NO_VALUES: Final = vec[i64]([0] * MEMO_SLOTS)


class Memo:
    """Values by key, both native ints, in open addressing over two vectors of unboxed ints (a
    dictionary would box every key and value): a search's results by state key (see state_key),
    a context's runs by theirs. A key is at most 59 bits, a value never negative: -1 marks an
    empty slot, or no value."""

    def __init__(self) -> None:
        self.size: i64 = 0
        self.mask: i64 = MEMO_SLOTS - 1
        self.keys = NO_KEYS[:]  # (copies)
        self.values = NO_VALUES[:]

    def get(self, key: i64) -> i64:
        """The value held for ``key``, or -1."""
        keys, mask = self.keys, self.mask
        slot: i64 = slot_of(key, mask)
        while True:
            held = keys[slot]
            if held == key:
                return self.values[slot]
            if held < 0:
                return -1
            slot = (slot + 1) & mask

    def move_at(self, key: i64) -> i64:
        """The move recorded with the exact result of state ``key``, which a search has just
        passed through (see Search.arrange)."""
        exact = self.get(key)
        if exact < 0 or exact & ENTRY_BOUND:  # pragma: no cover - the search's own path
            raise AssertionError(f"no exact result recorded for state {key}")
        return move_of(exact)

    def put(self, key: i64, value: i64) -> None:
        keys, mask = self.keys, self.mask
        slot: i64 = slot_of(key, mask)
        while True:
            held = keys[slot]
            if held == key:
                self.values[slot] = value
                return
            if held < 0:
                break
            slot = (slot + 1) & mask
        keys[slot] = key
        self.values[slot] = value
        self.size += 1
        if 2 * self.size > mask:
            self._grow()

    def _grow(self) -> None:
        keys, values = self.keys, self.values
        slots: i64 = 2 * len(keys)
        mask = self.mask = slots - 1
        new_keys = self.keys = vec[i64]([-1] * slots)
        new_values = self.values = vec[i64]([0] * slots)
        for i in range(len(keys)):
            key = keys[i]
            if key >= 0:
                slot: i64 = slot_of(key, mask)
                while new_keys[slot] >= 0:
                    slot = (slot + 1) & mask
                new_keys[slot] = key
                new_values[slot] = values[i]


def slot_of(key: i64, mask: i64) -> i64:
    """A key's first slot: its bits folded and multiplied, the product's middle bits. (Compiled,
    the product wraps at 64 bits; the bits taken are the same.)"""
    return ((key ^ key >> 23 ^ key >> 43) * 0x9E3779B1) >> 16 & mask

"""A game's channel: the name its event notices travel under, on any channels backend."""

from __future__ import annotations

from typing import Final

_PREFIX: Final = "game:"


def channel_of(game_id: str) -> str:
    return f"{_PREFIX}{game_id}"


def game_of_channel(channel: str) -> str:
    """The game whose channel this is (``channel_of``'s inverse)."""
    if not channel.startswith(_PREFIX):
        raise ValueError(f"not a game's channel: {channel!r}")
    return channel.removeprefix(_PREFIX)

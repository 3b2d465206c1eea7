"""Who a bearer token speaks for: a seat's token, or a player's key.

A seat token names one seat of one game (checked against the game's token hashes). A player key
names a player, who acts for every seat the player holds (``GameRecord.players``): the key is
looked up here, once per request, and a key that no player holds is a 401 before anything else
is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.http.problems import PlayerKeyRequired, UnknownPlayerKey
from service.identity.keys import is_player_key, key_hash
from service.identity.store import PlayerRecord, PlayerStore


@dataclass(frozen=True, slots=True)
class Caller:
    token: str
    """The bearer token as sent (a seat token or a player key)."""
    player_id: str | None = None
    """The player whose key ``token`` is; None for a seat token."""

    @property
    def owner(self) -> str:
        """Whose Idempotency-Keys the caller's are (``service.http.idempotency.retry_of``'s
        ``token``): the player's, the same across replaced keys; else the seat token's."""
        return self.token if self.player_id is None else f"player:{self.player_id}"


async def caller_of(players: PlayerStore, token: str) -> Caller:
    """The caller ``token`` names; 401 for a player key that no player holds."""
    if not is_player_key(token):
        return Caller(token)
    return Caller(token, await _holder(players, token))


async def player_of(players: PlayerStore, token: str | None) -> str:
    """The id of the player whose key ``token`` is; 401 for no key, a seat token or an unknown
    key (a route for players only)."""
    if token is None or not is_player_key(token):
        raise PlayerKeyRequired("send a player's key as 'Authorization: Bearer <key>'")
    return await _holder(players, token)


async def _holder(players: PlayerStore, key: str) -> str:
    player_id = await players.player_of_key(key_hash(key))
    if player_id is None:
        raise UnknownPlayerKey("no player holds this key: it is unknown, or it was replaced")
    return player_id


async def myself(players: PlayerStore, caller: Caller | None) -> PlayerRecord:
    """The player who calls (a ``{"me": true}`` seat's); 401 unless the caller sent a player's
    key."""
    if caller is None or caller.player_id is None:
        raise PlayerKeyRequired(
            "a seat for me is the caller's: send a player's key as 'Authorization: Bearer <key>'"
        )
    player = await players.get(caller.player_id)
    if player is None:  # its key resolved, so only a store that lost the profile gets here
        raise UnknownPlayerKey("no player holds this key: it is unknown, or it was replaced")
    return player


async def list_game(
    players: PlayerStore, seats: tuple[str | None, ...], game_id: str, created: float
) -> None:
    """Put a game in the list of each player seated in it (``seats``: each seat's player).
    Written before the game is stored, so no player's list ever misses a game of theirs."""
    for player_id in {p for p in seats if p is not None}:
        await players.add_game(player_id, (created, game_id))

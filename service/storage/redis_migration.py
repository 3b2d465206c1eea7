"""``python -m service.storage.redis_migration``: move the games that instances from before the
sharded layout wrote into the layout of ``service.storage.redis_keys``, so that an upgrade keeps
every game in play.

Before, every key of a game was tagged with the game's id, and one sorted set held the due moves
of every game:

    <prefix>:{<game_id>}:game, <prefix>:{<game_id>}:log, <prefix>:{<game_id>}:idem:<key>
    <prefix>:{moves}:due

The new instances read neither. Run this with the old instances stopped and before the new ones
start, with the service's ``REDIS_URL`` (and ``REDIS_CLUSTER``). Each old key is copied to its new
name with its time to live (``DUMP``, ``RESTORE``: across slots, so in a cluster too), then
deleted; each game moved gets a due entry in its shard: its old one, else due now (the first
sweep works out what, if anything, is owed, and drops the entry if nothing is). Safe to run
again: a key moved already is not copied twice, and a run stopped half way is finished by the
next. ``--dry-run`` counts what would move and writes nothing.

The values themselves did not change (a game's hash is ``v`` and ``r``; a game without the idle
mark ``i`` is kept for the full ``GAME_TTL``), nor did any other key: lobby, invites, sheets
and records are where they were (a game's event notices have since moved beside it, written by
its commits: notices are short-lived and nothing needs moving).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, cast

import redis
from redis.exceptions import ResponseError

from service.settings import Settings, SettingsError
from service.storage import redis_keys
from service.storage.redis_game_store import DEFAULT_KEY_PREFIX

Client = redis.Redis | redis.RedisCluster
_NO_SUCH_KEY: Final = -2
"""What ``PTTL`` answers for a key that does not exist."""


@dataclass
class Moved:
    """What a run moved (or, dry, would move)."""

    games: int = 0
    logs: int = 0
    saved_answers: int = 0
    due_kept: int = 0
    """Games whose old due entry was carried over."""
    due_now: int = 0
    """Games with no old entry, given one due now."""

    def __str__(self) -> str:
        return (
            f"{self.games} games, {self.logs} logs, {self.saved_answers} saved answers; "
            f"due entries: {self.due_kept} carried over, {self.due_now} due now"
        )


def old_due_key(prefix: str) -> str:
    return f"{prefix}:{{moves}}:due"


def _old_key_pattern(prefix: str) -> re.Pattern[str]:
    """An old game key: the game's id as the whole tag, then its part. A new key does not
    match: its tag is the shard (``g<k>``) and the game's id follows it."""
    return re.compile(rf"{re.escape(prefix)}:\{{(?P<game>[^}}]+)\}}:(?P<part>game|log|idem:.+)")


def _new_key(prefix: str, game_id: str, part: str) -> str:
    if part == "game":
        return redis_keys.game_key(prefix, game_id)
    if part == "log":
        return redis_keys.log_key(prefix, game_id)
    return redis_keys.idempotency_key(prefix, game_id, part.removeprefix("idem:"))


def _keys(client: Client, pattern: str) -> Iterator[bytes]:
    if isinstance(client, redis.RedisCluster):  # every master holds some
        yield from client.scan_iter(match=pattern, count=1000, target_nodes="primaries")
    else:
        yield from client.scan_iter(match=pattern, count=1000)


def migrate(client: Client, prefix: str, *, dry_run: bool = False) -> Moved:
    """Move every old key under ``prefix`` to its new name, and give each game moved its due
    entry; what was (or, dry, would be) moved. A game's entry is written before its old key is
    deleted, and the old due set last, so a run stopped anywhere leaves what the next needs."""
    moved = Moved()
    old_pattern = _old_key_pattern(prefix)
    entries = client.zrange(old_due_key(prefix), 0, -1, withscores=True)
    due_before = dict(cast("list[tuple[bytes, float]]", entries))
    for raw in _keys(client, f"{prefix}:{{*}}:*"):
        match = old_pattern.fullmatch(raw.decode())
        if match is None:
            continue
        game_id, part = match["game"], match["part"]
        if not dry_run and not _copied(client, raw, _new_key(prefix, game_id, part)):
            continue  # expired meanwhile
        if part == "game":
            moved.games += 1
            due = due_before.get(game_id.encode())
            if due is None:
                moved.due_now += 1
            else:
                moved.due_kept += 1
            if not dry_run:
                entry = {game_id: time.time() if due is None else due}
                client.zadd(redis_keys.due_key(prefix, game_id), entry, nx=True)
        elif part == "log":
            moved.logs += 1
        else:
            moved.saved_answers += 1
        if not dry_run:
            client.delete(raw)
    if not dry_run:
        client.delete(old_due_key(prefix))
    return moved


def _copied(client: Client, old: bytes, new: str) -> bool:
    """Copy ``old`` to ``new`` with its time to live; False if ``old`` expired before it could
    be read. A ``new`` that exists already is the copy a run stopped half way made (the old
    instances, stopped, wrote nothing since): it is kept."""
    ttl_ms = int(client.pttl(old))
    dumped = client.dump(old)
    if ttl_ms == _NO_SUCH_KEY or dumped is None:
        return False
    try:
        client.restore(new, max(ttl_ms, 0), dumped)  # 0: no expiry
    except ResponseError as error:
        if "BUSYKEY" not in str(error):
            raise
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.storage.redis_migration",
        description=(
            "Move the games written before the sharded key layout to their new keys, on the "
            "Redis (or Redis Cluster) that REDIS_URL and REDIS_CLUSTER name. Stop the old "
            "instances first; start the new ones after."
        ),
    )
    parser.add_argument("--dry-run", action="store_true", help="count, write nothing")
    parser.add_argument(
        "--key-prefix",
        default=None,
        help=f"the keys' prefix (default REDIS_KEY_PREFIX, else {DEFAULT_KEY_PREFIX!r})",
    )
    options = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"redis_migration: {error}", file=sys.stderr)
        return 2
    prefix: str = options.key_prefix or settings.redis_key_prefix
    if not settings.redis_url:
        print("redis_migration: REDIS_URL is not set", file=sys.stderr)
        return 2
    cluster = settings.redis_cluster
    client: Client = (
        redis.RedisCluster.from_url(settings.redis_url)
        if cluster
        else redis.Redis.from_url(settings.redis_url)
    )
    with client:
        moved = migrate(client, prefix, dry_run=options.dry_run)
    print(f"{'would move' if options.dry_run else 'moved'}: {moved}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How each kind of setting is read from the environment (``service.settings``): each reader
takes the environment and the variable's name, and raises ``SettingsError`` naming both (never
a secret's value) for a value the service cannot use."""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Final, TypeVar

Number = TypeVar("Number", int, float)

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""

    def __init__(self, name: str, value: str, expected: str) -> None:
        self.name = name
        super().__init__(f"{name}={value!r}: expected {expected}")


def public_url(env: Mapping[str, str], name: str) -> str:
    raw = env.get(name, "").strip()
    parts = urllib.parse.urlsplit(raw)
    if raw and (parts.scheme not in ("http", "https") or not parts.netloc or parts.query):
        raise SettingsError(name, raw, "an http:// or https:// URL without a query")
    return raw.rstrip("/")


def key_prefix(env: Mapping[str, str], name: str, default: str) -> str:
    raw = env.get(name, "").strip()
    if "{" in raw or "}" in raw or any(character.isspace() for character in raw):
        raise SettingsError(name, raw, "a key prefix without braces or spaces")
    return raw or default


def networks(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    networks = listed(env, name)
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise SettingsError(name, network, "IP addresses or CIDR networks") from None
    return networks


TOKEN_LEAST: Final = 16
"""Characters a secret token (``METRICS_TOKEN``, an app's key) holds at least: ``/metrics`` is
not rate limited, so a short token could be guessed."""
_TOKEN: Final = re.compile(r"[!-~]+")
"""Printable ASCII without spaces: what a bearer token in a header can hold."""


def token(env: Mapping[str, str], name: str) -> str:
    raw = env.get(name, "").strip()
    if raw and (len(raw) < TOKEN_LEAST or not _TOKEN.fullmatch(raw)):
        raise SettingsError(  # a secret: never written out, even a bad one
            name,
            "(not shown)",
            f"at least {TOKEN_LEAST} printable ASCII characters without spaces",
        )
    return raw


_APP_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


def app_keys(env: Mapping[str, str], name: str) -> tuple[tuple[str, str], ...]:
    """``name=key`` pairs, comma-separated: each key a token as above (it may hold ``=``)."""
    apps: list[tuple[str, str]] = []
    for item in listed(env, name):
        app, equals, key = item.partition("=")
        app, key = app.strip(), key.strip()
        if not equals or not key or not _APP_NAME.fullmatch(app):
            raise SettingsError(  # the key is a secret: only the name is shown
                name, app or "(no name)", "name=key pairs, each name 1 to 32 of a-z 0-9 _ -"
            )
        apps.append((app, token({name: key}, name)))
    if len({app for app, _ in apps}) < len(apps) or len({key for _, key in apps}) < len(apps):
        raise SettingsError(name, "(not shown)", "each app named once, each with a key of its own")
    return tuple(apps)


def crash_points(env: Mapping[str, str], name: str) -> tuple[tuple[str, float], ...]:
    points: list[tuple[str, float]] = []
    for item in listed(env, name):
        point, _, chance = item.partition("=")
        try:
            value = float(chance)
        except ValueError:
            value = -1.0
        if not point.strip() or not 0 <= value <= 1:
            raise SettingsError(name, item, "point=chance pairs, each chance from 0 to 1")
        points.append((point.strip(), value))
    return tuple(points)


def listed(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in env.get(name, "").split(",") if item.strip())


def integer(env: Mapping[str, str], name: str, default: int, *, low: int, high: int = 2**31) -> int:
    value = _read(env, name, int, "an integer")
    if value is None:
        return default
    if not low <= value <= high:
        raise SettingsError(name, str(value), f"an integer from {low} to {high}")
    return value


def seconds(env: Mapping[str, str], name: str, default: float) -> float:
    value = _read(env, name, float, "a number of seconds")
    if value is None:
        return default
    if not value > 0:
        raise SettingsError(name, env[name].strip(), "a positive number of seconds")
    return value


def _read(
    env: Mapping[str, str], name: str, convert: Callable[[str], Number], expected: str
) -> Number | None:
    """The variable's value converted, None when it is unset or empty."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        return convert(raw)
    except ValueError:
        raise SettingsError(name, raw, expected) from None


def boolean(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None:
        return default
    text = raw.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise SettingsError(name, raw, "true or false")

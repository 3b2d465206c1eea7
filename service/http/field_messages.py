"""What a refused body field should have been, from its declared type: the values an enum allows,
the tags a tagged union knows (an action's ``type``), and for a pattern, the field's own
description instead of the regex (a name's pattern is some 600 characters of Unicode ranges,
useless to a person and longer than any detail should be).

msgspec says ``Invalid enum value 'deck'``, ``Invalid value 'pass'`` (a tag no struct of the
union has) and ``Expected `str` matching regex '…'``, with the field's path; ``explained`` finds
the field's type at that path (``msgspec.inspect``) and says what it allows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any, Final

import msgspec.inspect as mi

_STEP: Final = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_REGEX_MESSAGE: Final = re.compile(r"Expected `str` matching regex .*", re.DOTALL)

MAX_DETAIL: Final = 300
"""No problem's ``detail`` is longer (``service.http.problems``)."""


def explained(body_type: Any, field: str, message: str) -> str:
    """msgspec's ``message`` about ``field`` of a ``body_type`` body, with the allowed values of
    an enum, or a pattern's description in place of its regex."""
    if message.startswith(("Invalid enum value", "Invalid value")):
        values = _allowed_values(body_type, field)
        if values:
            return f"{message}; allowed: {', '.join(values)}"
    elif _REGEX_MESSAGE.fullmatch(message):
        description = _description(body_type, field)
        return (
            f"does not match this field's pattern: {description}"
            if description
            else "does not match this field's pattern (in the OpenAPI document)"
        )
    return message


def _allowed_values(body_type: Any, field: str) -> list[str]:
    """The values of an enum or a literal at ``field``, or the tags of the structs whose tag
    field it is."""
    steps = _steps(field)
    values: list[str] = []
    for node, _ in _nodes_at(_info(body_type), steps):
        if isinstance(node, mi.LiteralType):
            values += [repr(value) for value in node.values]
        elif isinstance(node, mi.EnumType):
            values += [repr(member.value) for member in node.cls]
    if steps:
        tag_field, _ = steps[-1]
        tags = [
            node.tag
            for node, _ in _nodes_at(_info(body_type), steps[:-1])
            if isinstance(node, mi.StructType) and node.tag_field == tag_field
        ]
        values += [repr(tag) for tag in sorted(tags, key=str)]
    return list(dict.fromkeys(values))


def _description(body_type: Any, field: str) -> str | None:
    for node, description in _nodes_at(_info(body_type), _steps(field)):
        if isinstance(node, mi.StrType) and node.pattern is not None and description:
            return description
    return None


@cache
def _info(body_type: Any) -> mi.Type:
    return mi.type_info(body_type)


def _steps(field: str) -> list[tuple[str, str]]:
    return [(name, index) for name, index in _STEP.findall(field)]


def _nodes_at(
    node: mi.Type, steps: list[tuple[str, str]], description: str | None = None
) -> Iterator[tuple[mi.Type, str | None]]:
    """Every type (with the nearest description) that the path ``steps`` may reach from
    ``node``: each member of a union is followed."""
    if isinstance(node, mi.Metadata):
        extra = node.extra_json_schema or {}
        yield from _nodes_at(node.type, steps, extra.get("description", description))
    elif isinstance(node, mi.UnionType):
        for member in node.types:
            yield from _nodes_at(member, steps, description)
    elif not steps:
        yield node, description
    elif isinstance(node, mi.StructType):
        name, _ = steps[0]
        for struct_field in node.fields:
            if struct_field.encode_name == name:
                yield from _nodes_at(struct_field.type, steps[1:])
    elif isinstance(node, (mi.ListType, mi.VarTupleType, mi.SetType)) and steps[0][1]:
        yield from _nodes_at(node.item_type, steps[1:], description)

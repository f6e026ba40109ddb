"""Private validation helpers shared by the value objects (every failure is a ContractError)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NoReturn

from pixtreme.infer.errors import ContractError

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def fail(owner: str, field: str, value: object, *, expected: str, how: str) -> NoReturn:
    """Raise the shared actionable ContractError for one bad field."""
    raise ContractError(
        why=f"{owner}.{field} must be {expected}",
        what=f"received {field}={value!r} ({type(value).__name__})",
        how=how,
    )


def positive_int(owner: str, field: str, value: object, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an int (not bool) >= minimum."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        fail(
            owner,
            field,
            value,
            expected=f"an int >= {minimum}",
            how=f"pass a whole number of at least {minimum}",
        )
    return value


def hw_pair(owner: str, field: str, value: object) -> tuple[int, int]:
    """Return ``value`` if it is a (height, width) tuple of positive ints."""
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or any(isinstance(item, bool) or not isinstance(item, int) or item < 1 for item in value)
    ):
        fail(
            owner,
            field,
            value,
            expected="a (height, width) tuple of two positive ints",
            how=f"pass {field}=(height, width), for example (256, 256)",
        )
    return (int(value[0]), int(value[1]))


def identifier(owner: str, field: str, value: object) -> str:
    """Return ``value`` if it is a Python identifier string."""
    if not isinstance(value, str) or not _IDENTIFIER.match(value):
        fail(
            owner,
            field,
            value,
            expected="an identifier (letters, digits and underscores, not starting with a digit)",
            how="rename it to a valid Python keyword-argument name such as 'strength'",
        )
    return value


def non_empty_str(owner: str, field: str, value: object) -> str:
    """Return ``value`` if it is a non-blank string."""
    if not isinstance(value, str) or not value.strip():
        fail(owner, field, value, expected="a non-empty string", how=f"pass a non-empty {field}")
    return value


def one_of[T](owner: str, field: str, value: object, accepted: Collection[T]) -> T:
    """Return ``value`` if it is one of ``accepted`` (compared by equality and type)."""
    for candidate in accepted:
        if type(value) is type(candidate) and value == candidate:
            return candidate
    fail(
        owner,
        field,
        value,
        expected=f"one of {tuple(accepted)!r}",
        how=f"pass one of {', '.join(repr(item) for item in accepted)}",
    )


def instance_of[T](owner: str, field: str, value: object, kind: type[T]) -> T:
    """Return ``value`` if it is an instance of ``kind``."""
    if not isinstance(value, kind):
        fail(
            owner,
            field,
            value,
            expected=f"a {kind.__name__}",
            how=f"construct {field} with {kind.__name__}(...)",
        )
    return value

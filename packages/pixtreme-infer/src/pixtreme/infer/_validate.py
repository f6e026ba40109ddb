"""Private validation helpers shared by the value objects (every failure is a ContractError)."""

from __future__ import annotations

import itertools
import math
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


def number(
    owner: str,
    field: str,
    value: object,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    allow_inf: bool = False,
    how: str = "pass a plain float, such as float(value)",
) -> float:
    """Return ``value`` as a float if it is a real number (not bool, not NaN) within bounds.

    Infinity is rejected unless ``allow_inf``; bounds are inclusive.
    """
    bounds = []
    if minimum is not None:
        bounds.append(f">= {minimum}")
    if maximum is not None:
        bounds.append(f"<= {maximum}")
    base = "a number (or infinity)" if allow_inf else "a finite number"
    expected = base + (" " + " and ".join(bounds) if bounds else "")
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or (math.isinf(value) and not allow_inf)
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        fail(owner, field, value, expected=expected, how=how)
    return float(value)


def flag(owner: str, field: str, value: object) -> bool:
    """Return ``value`` if it is a bool."""
    if not isinstance(value, bool):
        fail(owner, field, value, expected="True or False", how=f"pass {field}=bool(...)")
    return value


def text(owner: str, field: str, value: object, *, optional: bool = False) -> str | None:
    """Return ``value`` if it is a string (or None when ``optional``); empty strings are fine."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        fail(
            owner,
            field,
            value,
            expected="a string or None" if optional else "a string",
            how=f"pass {field} as str(...)" + (" or None" if optional else ""),
        )
    return value


def str_tuple(owner: str, field: str, value: object, *, non_empty: bool = False) -> tuple[str, ...]:
    """Return ``value`` if it is a tuple of non-empty strings (and itself non-empty if asked)."""
    if (
        not isinstance(value, tuple)
        or (non_empty and not value)
        or not all(isinstance(item, str) and item.strip() for item in value)
    ):
        fail(
            owner,
            field,
            value,
            expected=f"a {'non-empty ' if non_empty else ''}tuple of non-empty strings",
            how=f"pass {field} as a tuple, such as ('a', 'b')",
        )
    return value


def optional_callable(owner: str, field: str, value: object) -> None:
    """Reject anything that is neither None nor callable."""
    if value is not None and not callable(value):
        fail(
            owner,
            field,
            value,
            expected="a zero-argument callable returning the facts, or None",
            how=f"pass {field}=lambda: ... (the module's evidence fixture), or leave it None",
        )


def ordered(owner: str, named: tuple[tuple[str, float], ...], *, rel: float = 1e-9) -> None:
    """Reject values that do not grow in the given order (rounding within ``rel`` is allowed)."""
    for (low_name, low), (high_name, high) in itertools.pairwise(named):
        if low > high and not math.isclose(low, high, rel_tol=rel, abs_tol=1e-15):
            raise ContractError(
                why=f"{owner} needs {' <= '.join(name for name, _ in named)}",
                what=f"received {low_name}={low!r} > {high_name}={high!r}",
                how=f"build {owner} from one set of samples (the summarize_* functions do)",
            )

"""Strict JSON for records: validation with a depth limit, canonical bytes and strict parsing.

Strict JSON here means: objects with string keys, arrays, strings that are valid Unicode
scalars, ints, finite floats, booleans and null, nested at most MAX_JSON_DEPTH levels, and, when
parsed, no duplicate keys and no NaN, Infinity or out-of-range numbers such as ``1e999``.
Every violation raises VerificationInputError; nothing else escapes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import NoReturn

from pixtreme.infer.verification._results import VerificationInputError

MAX_JSON_DEPTH = 200
"""The deepest nesting of objects and arrays a record or reference may use."""

_HOW = "store only dicts with str keys, lists, str, int, finite float, bool and None"


class _FrozenList(tuple[object, ...]):
    """A validated JSON array kept immutable (distinct from an arbitrary tuple)."""


def _invalid(what: str, how: str = _HOW) -> NoReturn:
    raise VerificationInputError(
        "invalid-json", why="records and references are strict JSON", what=what, how=how
    )


def _scalar(value: object) -> bool:
    """Whether ``value`` is a valid JSON scalar (raising for invalid strings and floats)."""
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return True
    if kind is str:
        try:
            value.encode("utf-8")  # type: ignore[attr-defined]
        except UnicodeEncodeError:
            _invalid("a string holds a lone surrogate", "store valid Unicode text only")
        return True
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            _invalid(f"the number {value!r} is not finite", "store finite numbers only")
        return True
    return False


def _strict_copy(value: object, frozen: bool, depth: int, active: set[int]) -> object:
    if _scalar(value):
        return value
    if depth >= MAX_JSON_DEPTH:
        _invalid(f"values nest deeper than {MAX_JSON_DEPTH} levels", "flatten the record")
    if isinstance(value, Mapping):
        key = id(value)
        if key in active:
            _invalid("an object contains itself", "break the cycle")
        active.add(key)
        try:
            copied: dict[str, object] = {}
            for name, item in value.items():
                if type(name) is not str:
                    _invalid(f"an object key is {type(name).__name__}, not str")
                _scalar(name)
                copied[name] = _strict_copy(item, frozen, depth + 1, active)
        finally:
            active.discard(key)
        return MappingProxyType(copied) if frozen else copied
    if type(value) is list or type(value) is _FrozenList:
        key = id(value)
        if key in active:
            _invalid("an array contains itself", "break the cycle")
        active.add(key)
        try:
            items = [_strict_copy(item, frozen, depth + 1, active) for item in value]
        finally:
            active.discard(key)
        return _FrozenList(items) if frozen else items
    _invalid(f"a value is {type(value).__name__}")


def strict_copy(value: object, *, frozen: bool = False) -> object:
    """Validate ``value`` as strict JSON and return an independent (optionally frozen) copy."""
    return _strict_copy(value, frozen, 0, set())


def canonical_bytes(value: object) -> bytes:
    """The one canonical encoding: sorted keys, compact separators, UTF-8, no NaN."""
    normalized = strict_copy(value)
    try:
        text = json.dumps(
            normalized, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )
        return text.encode("utf-8")
    except (TypeError, ValueError, OverflowError, RecursionError, UnicodeEncodeError) as error:
        _invalid(f"the value cannot be encoded: {type(error).__name__}: {error}")


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"the non-JSON constant {name}")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text} does not fit a finite float")
    return number


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, item in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = item
    return result


def parse_strict(data: bytes) -> object:
    """Parse UTF-8 JSON bytes strictly; every problem raises VerificationInputError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise VerificationInputError(
            "reference-encoding",
            why="JSON files are UTF-8",
            what=f"byte {error.start} is not valid UTF-8",
            how="save the file as UTF-8",
        ) from error
    try:
        parsed: object = json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            object_pairs_hook=_unique_keys,
        )
        strict_copy(parsed)
    except (ValueError, RecursionError) as error:
        what = str(error) if not isinstance(error, RecursionError) else "it nests too deeply"
        raise VerificationInputError(
            "reference-json",
            why="a JSON file is trusted only when it is strict JSON",
            what=what,
            how="regenerate it with canonical_json (finite numbers, unique keys, shallow nesting)",
        ) from error
    return parsed

"""Canonical JSON records, sha256 digests, digest-checked references and portable paths."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn

from pixtreme.infer.errors import RecordError
from pixtreme.infer.verification._results import JsonValue

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")


def portable_path_problem(value: object) -> str | None:
    """Why ``value`` is not a portable relative POSIX path, or None when it is one.

    Portable means a non-empty string with '/' separators only: no backslash, not absolute
    (no leading '/', no drive letter), and no empty, '.' or '..' segment.
    """
    if not isinstance(value, str) or not value:
        return "is not a non-empty string"
    if "\\" in value:
        return "contains a backslash"
    if value.startswith("/") or _WINDOWS_DRIVE.match(value):
        return "is absolute"
    segments = value.split("/")
    if ".." in segments:
        return "has a '..' segment"
    if "." in segments or "" in segments:
        return "has an empty or '.' segment"
    return None


def canonical_json(value: object) -> str:
    """Serialize ``value`` as canonical JSON: sorted keys, compact separators, no NaN/inf."""
    try:
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as error:
        raise RecordError(
            why="records are canonical JSON: plain containers, strings, finite numbers",
            what=f"{type(error).__name__}: {error}",
            how="convert values with .as_record() and replace NaN or infinity by a string",
        ) from error


def sha256_hex(data: bytes | str) -> str:
    """The lower-case hex sha256 of ``data`` (str is encoded as UTF-8)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def record_digest(value: object) -> str:
    """The sha256 of ``value``'s canonical JSON."""
    return sha256_hex(canonical_json(value))


def write_record(path: str | Path, value: object) -> str:
    """Write ``value`` as canonical JSON (UTF-8, trailing newline); return its sha256."""
    text = canonical_json(value)
    Path(path).write_text(text + "\n", encoding="utf-8")
    return sha256_hex(text + "\n")


def _reject_constant(name: str) -> NoReturn:
    raise RecordError(
        why="JSON references must hold finite numbers only",
        what=f"found the non-standard constant {name}",
        how="regenerate the reference with allow_nan=False (canonical_json does this)",
    )


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, item in pairs:
        if key in seen:
            raise RecordError(
                why="a JSON reference must not repeat a key: only one value would be kept",
                what=f"key {key!r} appears more than once in one object",
                how="remove the duplicated key from the reference and update its digest",
            )
        seen[key] = item
    return seen


def parse_json_strict(text: str) -> JsonValue:
    """Parse JSON, rejecting duplicate keys and NaN/Infinity with RecordError."""
    try:
        value: JsonValue = json.loads(
            text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as error:
        raise RecordError(
            why="the reference is not valid JSON",
            what=f"{error.msg} at line {error.lineno} column {error.colno}",
            how="fix or regenerate the reference file",
        ) from error
    return value


def load_json_reference(path: str | Path, *, sha256: str) -> JsonValue:
    """Read a JSON reference whose file bytes must have the given sha256, and parse it strictly."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as error:
        raise RecordError(
            why="the JSON reference must be readable",
            what=f"{type(error).__name__} reading {str(file)!r}",
            how="check the path (portable_path keeps it relative to the package)",
        ) from error
    digest = sha256_hex(data)
    if digest != sha256.lower():
        raise RecordError(
            why="a reference is trusted only when its bytes match the recorded digest",
            what=f"{file.name} has sha256 {digest}, expected {sha256}",
            how="restore the reference file, or update the recorded digest if it changed on "
            "purpose",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(
            why="JSON references are UTF-8", what=str(error), how="re-save the file as UTF-8"
        ) from error
    return parse_json_strict(text)


def portable_path(path: str | Path, *, root: str | Path) -> str:
    """``path`` relative to ``root`` in POSIX form; rejects paths outside ``root``."""
    resolved = Path(path).resolve()
    base = Path(root).resolve()
    try:
        relative = resolved.relative_to(base)
    except ValueError as error:
        raise RecordError(
            why="records store paths relative to their root so they read the same everywhere",
            what=f"{str(resolved)!r} is not under {str(base)!r}",
            how="keep referenced files inside the record's root folder",
        ) from error
    return PurePosixPath(*relative.parts).as_posix()


def is_finite_record(value: object) -> bool:
    """Whether every number inside ``value`` is finite (records must be)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(is_finite_record(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(is_finite_record(item) for item in value)
    return True


RECORD_SCHEMA = "pixtreme-infer/record"
"""The ``schema`` field every record validated by validate_record carries."""


def record_header(kind: str, *, version: int = 1) -> dict[str, JsonValue]:
    """The ``schema``, ``kind`` and ``version`` fields that start a record of ``kind``."""
    header: dict[str, JsonValue] = {"schema": RECORD_SCHEMA, "kind": kind, "version": version}
    _check_header(header, kind=None, version=None)
    return header


def _record_error(what: str, how: str) -> RecordError:
    return RecordError(
        why="a record is a canonical JSON object with schema, kind and version fields, finite "
        "numbers and portable relative paths",
        what=what,
        how=how,
    )


def _check_header(record: dict[str, Any], *, kind: str | None, version: int | None) -> None:
    schema = record.get("schema")
    if schema != RECORD_SCHEMA:
        raise _record_error(
            f"$.schema is {schema!r}, expected {RECORD_SCHEMA!r}",
            "start the record with record_header(kind, version=...)",
        )
    found_kind = record.get("kind")
    if not isinstance(found_kind, str) or not found_kind.strip():
        raise _record_error(
            f"$.kind is {found_kind!r}, expected a non-empty string",
            "name what the record describes, such as record_header('verification')",
        )
    if kind is not None and found_kind != kind:
        raise _record_error(
            f"$.kind is {found_kind!r}, expected {kind!r}",
            "read this file with the reader for its kind, or regenerate it",
        )
    found_version = record.get("version")
    if isinstance(found_version, bool) or not isinstance(found_version, int) or found_version < 1:
        raise _record_error(
            f"$.version is {found_version!r}, expected an int >= 1",
            "state the layout version of the record's kind, starting at 1",
        )
    if version is not None and found_version != version:
        raise _record_error(
            f"$.version is {found_version}, expected {version} for kind {found_kind!r}",
            "regenerate the record with the current writer, or read it with a matching reader",
        )


def _check_value(value: object, where: str, path_keys: frozenset[str]) -> None:
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _record_error(
                f"{where} is the non-finite number {value!r}",
                "store a finite number, or a string such as 'Infinity' when it is meaningful",
            )
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check_value(item, f"{where}[{index}]", path_keys)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _record_error(
                    f"{where} has the key {key!r} ({type(key).__name__})",
                    "use string keys only (JSON object keys are strings)",
                )
            inner = f"{where}.{key}"
            if key in path_keys:
                _check_paths(item, inner)
            _check_value(item, inner, path_keys)
        return
    raise _record_error(
        f"{where} is a {type(value).__name__} ({value!r:.60})",
        "convert it to a list, dict, string, finite number, bool or None (as_record() does)",
    )


def _check_paths(value: object, where: str) -> None:
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        if item is None and not isinstance(value, list):
            return
        problem = portable_path_problem(item)
        if problem is not None:
            location = f"{where}[{index}]" if isinstance(value, list) else where
            raise _record_error(
                f"{location} = {item!r} {problem}",
                "store paths relative to the record's root with '/' separators "
                "(portable_path(path, root=...) makes one)",
            )


def validate_record(
    record: object,
    *,
    kind: str | None = None,
    version: int | None = None,
    required: Iterable[str] = (),
    path_keys: Iterable[str] = (),
) -> dict[str, JsonValue]:
    """Check a record before it is written or after it is read; return it unchanged.

    A record is a JSON object that starts with ``schema`` (RECORD_SCHEMA), ``kind`` (a
    non-empty string, equal to ``kind`` when given) and ``version`` (an int >= 1, equal to
    ``version`` when given), and holds every key in ``required``. Values (at any depth) are
    None, bools, ints, finite floats, strings, lists and string-keyed dicts; a value under a key
    named in ``path_keys`` is a portable relative path (or a list of them, or None): '/'
    separators, no backslash, not absolute, no '..' segment. Finally the record must survive
    the canonical form round trip: encoding canonical_json as UTF-8 and parsing it strictly
    gives an equal record. Raises RecordError naming the first offending location.
    """
    if not isinstance(record, dict):
        raise _record_error(
            f"received a {type(record).__name__}, not a JSON object",
            "build the record as a dict, for example {**record_header('verification'), ...}",
        )
    _check_value(record, "$", frozenset(path_keys))
    _check_header(record, kind=kind, version=version)
    missing = sorted(set(required) - set(record))
    if missing:
        raise _record_error(
            f"missing required key(s) {missing}; present: {sorted(record)}",
            "add the missing fields, or regenerate the record with the current writer",
        )
    text = canonical_json(record)
    try:
        round_trip = parse_json_strict(text.encode("utf-8").decode("utf-8"))
    except UnicodeEncodeError as error:
        raise _record_error(
            f"the canonical form is not encodable as UTF-8: {error.reason} at {error.start}",
            "remove lone surrogates from the record's strings",
        ) from error
    if round_trip != record:
        raise _record_error(
            "the record differs from its canonical form parsed back",
            "store only plain JSON values (lists, not tuples; no subclasses that serialize "
            "differently)",
        )
    return record

"""Canonical JSON records, sha256 digests, digest-checked references and portable paths."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn

from pixtreme.infer.errors import RecordError
from pixtreme.infer.verification._results import JsonValue


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

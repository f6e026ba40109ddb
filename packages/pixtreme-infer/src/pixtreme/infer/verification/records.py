"""Canonical JSON, digest-checked references, portable paths and shared record fields.

canonical_json is the one byte representation of a record (sorted keys, compact, UTF-8, no
NaN, nesting at most MAX_JSON_DEPTH); canonical_sha256 hashes it. load_json_reference reads a
file only through a safe repository-relative path whose bytes match the recorded sha256, and
parses it strictly (no duplicate keys, no NaN, Infinity or ``1e999``). validate_common_record
checks the fields every verification record shares, leaving module fields opaque.

Beyond the published interface: report_record, verification_record and write_record build and
atomically write the record of a verification run.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import platform
import re
import secrets
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import cast

from pixtreme.infer.verification._json import (
    MAX_JSON_DEPTH,
    canonical_bytes,
    parse_strict,
    strict_copy,
)
from pixtreme.infer.verification._results import (
    VerificationExecutionError,
    VerificationInputError,
    VerificationReport,
    overall_status,
)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)"
)
_CHUNK = 1 << 20

VERIFICATION_RECORD_TYPE = "verification"
"""The record_type of the record verification_record builds."""
VERIFICATION_RECORD_VERSION = 1
"""The schema_version of the record verification_record builds."""


@dataclass(frozen=True)
class JsonReference:
    """A JSON file named by a canonical repository-relative POSIX path and its sha256."""

    path: str
    sha256: str

    def __post_init__(self) -> None:
        _relative_posix(self.path)
        if type(self.sha256) is not str or _SHA256.fullmatch(self.sha256) is None:
            raise VerificationInputError(
                "reference-digest",
                why="a reference records the sha256 of its file's bytes",
                what=f"sha256={self.sha256!r}",
                how="pass 64 lowercase hexadecimal characters (file_sha256 makes them)",
            )


@dataclass(frozen=True)
class CommonRecordFields:
    """The fields every verification record shares, as validated by validate_common_record."""

    schema_version: int
    record_type: str
    architecture: Mapping[str, object]
    environment_id: str
    executed_at: str
    environment: Mapping[str, object]
    artifacts: Mapping[str, object]
    precision: str | None = None


def canonical_json(value: object, /) -> bytes:
    """Encode a strict JSON value in the one canonical record representation."""
    return canonical_bytes(value)


def canonical_sha256(value: object, /) -> str:
    """The sha256 of canonical_json(value); invalid JSON is rejected before hashing."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def file_sha256(path: str | os.PathLike[str], /) -> str:
    """The sha256 of a file's bytes, read in bounded chunks."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as stream:
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        raise VerificationExecutionError(
            "file-read",
            why="hashing reads the whole file",
            what=f"{os.fspath(path)!r}: {type(error).__name__}: {error}",
            how="pass the path of a readable regular file",
        ) from error
    return digest.hexdigest()


def _bad_reference_path(path: object, what: str) -> VerificationInputError:
    return VerificationInputError(
        "reference-path",
        why="references are canonical repository-relative POSIX paths",
        what=f"path={path!r} {what}",
        how="store paths made by portable_path(path, root=...)",
    )


def _relative_posix(path: object) -> str:
    if type(path) is not str or not path:
        raise _bad_reference_path(path, "is not a nonempty string")
    if "\\" in path or "\x00" in path:
        raise _bad_reference_path(path, "holds a backslash or NUL byte")
    posix = PurePosixPath(path)
    if posix.is_absolute() or posix.as_posix() != path or path == ".":
        raise _bad_reference_path(path, "is absolute or not in canonical form")
    if ".." in posix.parts or ":" in posix.parts[0]:
        raise _bad_reference_path(path, "climbs out of its root or names a drive")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError as error:
        raise _bad_reference_path(path, "is not valid UTF-8 text") from error
    return path


def _local_path(value: str | os.PathLike[str], label: str) -> Path:
    """A filesystem path from caller input: str-based, nonempty, POSIX, no NUL, no '..'."""
    try:
        raw = os.fspath(value)
    except TypeError as error:
        raise VerificationInputError(
            "invalid-path",
            why=f"{label} is a filesystem path",
            what=repr(value),
            how="pass a str or Path",
        ) from error
    problem = None
    if not isinstance(raw, str) or not raw:
        problem = "is not a nonempty str path"
    elif "\x00" in raw or "\\" in raw or (len(raw) > 1 and raw[1] == ":"):
        problem = "holds a NUL byte, a backslash or a drive letter"
    elif ".." in Path(raw).parts:
        problem = "climbs with '..'"
    if problem is not None:
        raise VerificationInputError(
            "invalid-path",
            why=f"{label} must be a plain POSIX path",
            what=f"{label}={raw!r} {problem}",
            how="pass a path without NUL bytes, backslashes, drive letters or '..' segments",
        )
    return Path(raw)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except RuntimeError as error:  # a symlink loop (Python 3.12)
        raise VerificationInputError(
            "invalid-path",
            why="paths resolve to real files",
            what=f"{path}: {error}",
            how="remove the symlink loop",
        ) from error
    except OSError as error:
        raise VerificationExecutionError(
            "path-resolve",
            why="paths are resolved before use",
            what=f"{path}: {error}",
            how="check the path",
        ) from error


def portable_path(path: str | os.PathLike[str], /, *, root: str | os.PathLike[str]) -> str:
    """``path`` relative to ``root`` as a canonical POSIX path, after lexical and symlink checks.

    Returns ``"."`` for the root itself. Raises VerificationInputError when the path climbs
    with ``..``, resolves outside ``root`` or is not valid UTF-8 text.
    """
    candidate = _local_path(path, "path")
    base = _resolved(_local_path(root, "root"))
    resolved = _resolved(candidate if candidate.is_absolute() else base / candidate)
    try:
        relative = resolved.relative_to(base).as_posix()
    except ValueError as error:
        raise VerificationInputError(
            "invalid-path",
            why="records store paths inside their root",
            what=f"{os.fspath(path)!r} resolves to {str(resolved)!r}, outside {str(base)!r}",
            how="keep referenced files (and symlink targets) inside the root",
        ) from error
    return relative if relative == "." else _relative_posix(relative)


def load_json_reference(reference: JsonReference, /, *, root: str | os.PathLike[str]) -> object:
    """Load strict JSON only after the safe-path and content-digest checks."""
    if not isinstance(reference, JsonReference):
        raise _bad_reference_path(reference, "is not a JsonReference")
    relative = portable_path(reference.path, root=root)
    target = _resolved(_local_path(root, "root")) / relative
    try:
        mode = target.stat().st_mode
    except (FileNotFoundError, NotADirectoryError) as error:
        raise VerificationInputError(
            "reference-missing",
            why="a reference names an existing file",
            what=f"{reference.path!r} does not exist under the root",
            how="restore the file or fix the reference",
        ) from error
    except OSError as error:
        raise VerificationExecutionError(
            "reference-read",
            why="references are inspected before reading",
            what=str(error),
            how="check permissions",
        ) from error
    if not stat.S_ISREG(mode):
        raise VerificationInputError(
            "reference-nonregular",
            why="a reference names a regular file",
            what=f"{reference.path!r} is not a regular file",
            how="point the reference at the JSON file itself",
        )
    try:
        data = target.read_bytes()
    except (FileNotFoundError, NotADirectoryError) as error:
        raise VerificationInputError(
            "reference-missing",
            why="a reference names an existing file",
            what=f"{reference.path!r} vanished",
            how="retry",
        ) from error
    except OSError as error:
        raise VerificationExecutionError(
            "reference-read",
            why="references are read whole",
            what=str(error),
            how="check permissions",
        ) from error
    digest = hashlib.sha256(data).hexdigest()
    if digest != reference.sha256:
        raise VerificationInputError(
            "reference-digest-mismatch",
            why="a reference is trusted only when its bytes match the recorded sha256",
            what=f"{reference.path!r} has sha256 {digest}, the reference records "
            f"{reference.sha256}",
            how="restore the file, or record the new digest if it changed on purpose",
        )
    return parse_strict(data)


def _field_error(what: str, how: str) -> VerificationInputError:
    return VerificationInputError(
        "record-field", why="verification records share a fixed set of fields", what=what, how=how
    )


def _text_field(record: Mapping[str, object], key: str) -> str:
    value = record.get(key)
    if type(value) is not str or not value:
        raise _field_error(
            f"{key}={value!r} is not a nonempty string", f"set {key} to a nonempty string"
        )
    return value


def _object_field(record: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = record.get(key)
    if not isinstance(value, Mapping) or not value:
        raise _field_error(
            f"{key} is not a nonempty JSON object", f"set {key} to a nonempty object"
        )
    try:
        return cast(Mapping[str, object], strict_copy(value, frozen=True))
    except VerificationInputError as error:
        raise _field_error(
            f"{key} is not strict JSON ({error})", "store strict JSON values only"
        ) from error


def validate_common_record(record: Mapping[str, object], /) -> CommonRecordFields:
    """Validate the shared record fields only; module fields and artifact roles stay opaque."""
    if not isinstance(record, Mapping):
        raise _field_error(f"the record is {type(record).__name__}", "pass a mapping")
    version = record.get("schema_version")
    if type(version) is not int or version <= 0:
        raise _field_error(f"schema_version={version!r}", "set schema_version to a positive int")
    record_type = _text_field(record, "record_type")
    architecture = _object_field(record, "architecture")
    environment_id = _text_field(record, "environment_id")
    executed_at = _text_field(record, "executed_at")
    if _RFC3339.fullmatch(executed_at) is None:
        raise _field_error(
            f"executed_at={executed_at!r} is not RFC 3339 with a UTC offset",
            "write it as datetime.now(UTC).isoformat()",
        )
    try:
        datetime.fromisoformat(executed_at)
    except ValueError as error:
        raise _field_error(
            f"executed_at={executed_at!r}: {error}", "write a real date and time"
        ) from error
    environment = _object_field(record, "environment")
    artifacts = _object_field(record, "artifacts")
    precision = record.get("precision")
    if precision is not None and (type(precision) is not str or not precision):
        raise _field_error(f"precision={precision!r}", "omit precision or set a nonempty string")
    return CommonRecordFields(
        schema_version=version,
        record_type=record_type,
        architecture=architecture,
        environment_id=environment_id,
        executed_at=executed_at,
        environment=environment,
        artifacts=artifacts,
        precision=precision,
    )


_MAX_TEXT = 4000


def _json_value(value: object, depth: int = 0) -> object:
    """A finding's observed/expected value as strict JSON (non-JSON values become text)."""
    if value is None or type(value) in (bool, int):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        text = value.encode("utf-8", "backslashreplace").decode("utf-8")
        return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "..."
    if depth < 16 and isinstance(value, Mapping):
        return {str(key): _json_value(item, depth + 1) for key, item in value.items()}
    if depth < 16 and isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [_json_value(item, depth + 1) for item in items]
    if isinstance(value, BaseException):
        return _json_value(f"{type(value).__name__}: {value}")
    return _json_value(repr(value))


def report_record(report: VerificationReport, /) -> dict[str, object]:
    """A VerificationReport as strict JSON: scope, status and each check with its findings."""
    return {
        "scope": report.scope,
        "status": report.status,
        "checks": [
            {
                "name": check.name,
                "status": check.status,
                "findings": [
                    {
                        "code": finding.code,
                        "path": finding.path,
                        "observed": _json_value(finding.observed),
                        "expected": _json_value(finding.expected),
                        "detail": _json_value(finding.detail),
                    }
                    for finding in check.findings
                ],
            }
            for check in report.checks
        ],
    }


def _environment() -> dict[str, object]:
    from importlib.metadata import PackageNotFoundError, version

    versions: dict[str, object] = {}
    for distribution in ("pixtreme-infer", "pixtreme"):
        try:
            versions[distribution] = version(distribution)
        except PackageNotFoundError:
            versions[distribution] = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "distributions": versions,
    }


def verification_record(
    reports: Iterable[VerificationReport],
    /,
    *,
    architecture: Mapping[str, object],
    artifacts: Mapping[str, object],
    environment: Mapping[str, object] | None = None,
    environment_id: str | None = None,
    executed_at: str | None = None,
    precision: str | None = None,
) -> dict[str, object]:
    """The record of one verification run, validated with validate_common_record.

    Common fields: schema_version VERIFICATION_RECORD_VERSION, record_type
    VERIFICATION_RECORD_TYPE, ``architecture`` and ``artifacts`` (nonempty JSON objects),
    ``environment`` (this interpreter and platform by default), ``environment_id`` (the
    canonical_sha256 of the environment by default) and ``executed_at`` (now, UTC, by default).
    Run fields: ``status`` (overall_status of the reports), ``counts`` (checks per status) and
    ``reports`` (report_record of each).
    """
    collected = tuple(reports)
    for report in collected:
        if not isinstance(report, VerificationReport):
            raise _field_error(
                f"a report is {type(report).__name__}", "pass VerificationReport values"
            )
    described = dict(environment) if environment is not None else _environment()
    record: dict[str, object] = {
        "schema_version": VERIFICATION_RECORD_VERSION,
        "record_type": VERIFICATION_RECORD_TYPE,
        "architecture": dict(architecture),
        "environment_id": environment_id
        if environment_id is not None
        else canonical_sha256(described),
        "executed_at": (
            datetime.now(UTC).isoformat(timespec="seconds") if executed_at is None else executed_at
        ),
        "environment": described,
        "artifacts": dict(artifacts),
        "status": overall_status(collected),
        "counts": {
            status: sum(check.status == status for report in collected for check in report.checks)
            for status in ("passed", "failed", "unverified", "not-applicable")
        },
        "reports": [report_record(report) for report in collected],
    }
    if precision is not None:
        record["precision"] = precision
    validate_common_record(record)
    canonical_bytes(record)
    return record


def _record_target(path: str | os.PathLike[str]) -> Path:
    try:
        raw = os.fspath(path)
    except TypeError as error:
        raise VerificationInputError(
            "record-path",
            why="records are written to a file path",
            what=repr(path),
            how="pass a str or Path",
        ) from error
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise VerificationInputError(
            "record-path",
            why="records are written to a nonempty str path without NUL bytes",
            what=f"path={raw!r}",
            how="name the output file, for example verify-example.json",
        )
    target = Path(os.path.realpath(raw))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise VerificationExecutionError(
            "record-write",
            why="the target is inspected before writing",
            what=f"{raw!r}: {error}",
            how="check the path",
        ) from error
    if mode is not None and not stat.S_ISREG(mode):
        raise VerificationInputError(
            "record-path",
            why="a record replaces only a regular file",
            what=f"{raw!r} exists and is not a regular file",
            how="name a new file or an existing record file",
        )
    if not target.parent.is_dir():
        raise VerificationInputError(
            "record-path",
            why="records are written into an existing folder",
            what=f"the folder of {raw!r} does not exist",
            how="create the folder first or name a file in an existing one",
        )
    return target


def write_record(path: str | os.PathLike[str], record: Mapping[str, object], /) -> str:
    """Validate ``record``, write its canonical JSON plus a newline atomically; return its sha256.

    The bytes go to a temporary file in the target's folder, which then replaces the target,
    so a failed write never leaves a truncated record behind. Raises VerificationInputError
    for an invalid record or target and VerificationExecutionError when writing fails.
    """
    validate_common_record(record)
    data = canonical_bytes(record) + b"\n"
    target = _record_target(path)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view) :]
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise VerificationExecutionError(
            "record-write",
            why="a record is written whole or not at all",
            what=f"{os.fspath(path)!r}: {type(error).__name__}: {error}",
            how="check that the folder is writable and the disk has space",
        ) from error
    return hashlib.sha256(data).hexdigest()


__all__ = [
    "MAX_JSON_DEPTH",
    "VERIFICATION_RECORD_TYPE",
    "VERIFICATION_RECORD_VERSION",
    "CommonRecordFields",
    "JsonReference",
    "canonical_json",
    "canonical_sha256",
    "file_sha256",
    "load_json_reference",
    "portable_path",
    "report_record",
    "validate_common_record",
    "verification_record",
    "write_record",
]

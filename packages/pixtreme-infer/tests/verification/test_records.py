"""Canonical JSON, digest-checked references, portable paths, common record fields and the
verification record (build and atomic write), including the issue-16 hostile inputs."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pixtreme.infer.verification.contracts import (
    CheckResult,
    VerificationExecutionError,
    VerificationFinding,
    VerificationInputError,
    VerificationReport,
)
from pixtreme.infer.verification.records import (
    MAX_JSON_DEPTH,
    CommonRecordFields,
    JsonReference,
    canonical_json,
    canonical_sha256,
    file_sha256,
    load_json_reference,
    portable_path,
    report_record,
    validate_common_record,
    verification_record,
    write_record,
)

pytestmark = pytest.mark.req("spec.verification.records")

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


def _nested(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def _reference(root: Path, name: str, data: bytes) -> JsonReference:
    (root / name).write_bytes(data)
    return JsonReference(name, hashlib.sha256(data).hexdigest())


def test_canonical_form_sorts_keys_compactly_in_utf8() -> None:
    assert canonical_json({"b": 1, "a": [1.5, "é", None, True]}) == (
        '{"a":[1.5,"é",null,true],"b":1}'.encode()
    )
    assert canonical_sha256({"a": 1}) == hashlib.sha256(b'{"a":1}').hexdigest()


@given(_JSON)
def test_canonical_json_round_trips_through_a_digest_checked_reference(value: object) -> None:
    data = canonical_json(value)
    assert json.loads(data) == value
    assert canonical_json(json.loads(data)) == data


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (float("nan"), "not finite"),
        ({"a": float("inf")}, "not finite"),
        ({"a": {1, 2}}, "a value is set"),
        ((1, 2), "a value is tuple"),
        ({1: "x"}, "key is int"),
        ({"text": "\ud800"}, "lone surrogate"),
        (b"x", "a value is bytes"),
        (_nested(MAX_JSON_DEPTH + 1), "deeper than"),
        (_nested(5000), "deeper than"),
        (10**5000, "cannot be encoded"),
    ],
    ids=[
        "nan",
        "infinity",
        "set",
        "tuple",
        "int-key",
        "lone-surrogate",
        "bytes",
        "too-deep",
        "issue16-5000-levels",
        "issue16-5000-digits",
    ],
)
def test_canonical_json_rejects_non_json_with_one_error_type(value: object, pattern: str) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        canonical_json(value)
    with pytest.raises(VerificationInputError):
        canonical_sha256(value)


def test_canonical_json_rejects_cycles() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(VerificationInputError, match="contains itself"):
        canonical_json(cycle)


def test_nesting_up_to_the_limit_is_accepted() -> None:
    assert canonical_json(_nested(MAX_JSON_DEPTH)).startswith(b"[[")


def test_file_sha256_hashes_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(os.urandom(3 * 1024 * 1024 + 5))
    assert file_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", ["absent.bin", "nul\x00byte"], ids=["missing", "issue16-nul"])
def test_file_sha256_reports_unreadable_paths(tmp_path: Path, name: str) -> None:
    with pytest.raises(VerificationExecutionError, match="file-read"):
        file_sha256(tmp_path / name)


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/abs/ref.json",
        "../ref.json",
        "a/../b.json",
        "a\\b.json",
        "a\x00b.json",
        ".",
        "a//b.json",
        "./a.json",
        "C:/ref.json",
        3,
    ],
    ids=[
        "empty",
        "absolute",
        "parent",
        "inner-parent",
        "backslash",
        "issue16-nul",
        "dot",
        "double-slash",
        "dot-prefix",
        "drive",
        "not-text",
    ],
)
def test_references_need_canonical_relative_paths(path: object) -> None:
    with pytest.raises(VerificationInputError, match="reference-path"):
        JsonReference(path, "0" * 64)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "digest",
    ["A" * 64, "0" * 63, None, b"0" * 64],
    ids=["uppercase", "short", "issue16-none", "bytes"],
)
def test_references_need_a_lowercase_sha256(digest: object) -> None:
    with pytest.raises(VerificationInputError, match="reference-digest"):
        JsonReference("ref.json", digest)  # type: ignore[arg-type]


def test_a_matching_reference_loads(tmp_path: Path) -> None:
    (tmp_path / "refs").mkdir()
    data = canonical_json({"psnr_db": 41.5, "name": "x"})
    reference = _reference(tmp_path / "refs", "a.json", data)
    loaded = load_json_reference(JsonReference("refs/a.json", reference.sha256), root=tmp_path)
    assert loaded == {"name": "x", "psnr_db": 41.5}


@pytest.mark.parametrize(
    ("data", "pattern"),
    [
        (b'{"a": 1, "a": 2}', "reference-json"),
        (b'{"a": {"b": 1, "b": 1}}', "reference-json"),
        (b'{"a": NaN}', "reference-json"),
        (b"[Infinity]", "reference-json"),
        (b'{"x": 1e999}', "reference-json"),
        (b"[-1e400]", "reference-json"),
        (b"[" * 5000 + b"]" * 5000, "reference-json"),
        (b"[" + b"9" * 5000 + b"]", "reference-json"),
        (b'["\\ud800"]', "reference-json"),
        (b'{"a": 1', "reference-json"),
        (b"\xff\xfe{}", "reference-encoding"),
    ],
    ids=[
        "duplicate-key",
        "nested-duplicate",
        "nan",
        "infinity",
        "issue16-1e999",
        "issue16-minus-1e400",
        "issue16-deep-nesting",
        "issue16-5000-digits",
        "lone-surrogate-escape",
        "truncated",
        "not-utf8",
    ],
)
def test_only_strict_json_is_trusted(tmp_path: Path, data: bytes, pattern: str) -> None:
    reference = _reference(tmp_path, "ref.json", data)
    with pytest.raises(VerificationInputError, match=pattern):
        load_json_reference(reference, root=tmp_path)


def test_a_reference_whose_bytes_changed_is_refused(tmp_path: Path) -> None:
    reference = _reference(tmp_path, "ref.json", b"{}")
    (tmp_path / "ref.json").write_bytes(b'{"changed": true}')
    with pytest.raises(VerificationInputError, match="reference-digest-mismatch"):
        load_json_reference(reference, root=tmp_path)


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda root: JsonReference("absent.json", "0" * 64), "reference-missing"),
        (
            lambda root: (root / "dir").mkdir() or JsonReference("dir", "0" * 64),
            "reference-nonregular",
        ),
        (
            lambda root: (
                (root / "link.json").symlink_to(root.parent / "outside.json")
                or JsonReference("link.json", "0" * 64)
            ),
            "invalid-path",
        ),
        (lambda root: "ref.json", "reference-path"),
    ],
    ids=["missing", "directory", "symlink-outside-root", "not-a-reference"],
)
def test_unsafe_or_missing_references_are_refused(
    tmp_path: Path, make: Callable[[Path], Any], pattern: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.json").write_text("{}", encoding="utf-8")
    with pytest.raises(VerificationInputError, match=pattern):
        load_json_reference(make(root), root=root)


def test_portable_paths_are_relative_to_the_root(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert portable_path(tmp_path / "a" / "b.json", root=tmp_path) == "a/b.json"
    assert portable_path("a/b.json", root=tmp_path) == "a/b.json"
    assert portable_path(tmp_path, root=tmp_path) == "."


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        ("../elsewhere.json", "climbs with '..'"),
        ("/etc/passwd", "outside"),
        ("a\x00b", "NUL"),
        ("a\\b", "backslash"),
        ("", "nonempty"),
        (b"a/b", "nonempty str path"),
    ],
    ids=["parent", "outside", "issue16-nul", "backslash", "empty", "bytes"],
)
def test_portable_path_rejects_paths_records_cannot_hold(
    tmp_path: Path, path: object, pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        portable_path(path, root=tmp_path)  # type: ignore[arg-type]


def test_a_symlink_loop_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(VerificationInputError, match="invalid-path"):
        portable_path("loop/x.json", root=tmp_path)


def test_a_non_utf8_file_name_is_not_a_portable_path(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad-\xff.json")
    (tmp_path / name).write_bytes(b"{}")
    with pytest.raises(VerificationInputError, match="UTF-8"):
        portable_path(tmp_path / name, root=tmp_path)


def _record(**overrides: object) -> dict[str, object]:
    record: dict[str, object] = {
        "schema_version": 1,
        "record_type": "benchmark",
        "architecture": {"name": "example"},
        "environment_id": "env-1",
        "executed_at": "2026-12-01T09:00:00Z",
        "environment": {"python": "3.12"},
        "artifacts": {"engine": {"path": "a.engine", "sha256": "0" * 64}},
        "module_field": [1, 2],
    }
    record.update(overrides)
    return record


def test_common_fields_are_validated_and_returned_frozen() -> None:
    fields = validate_common_record(_record(precision="fp16"))
    assert isinstance(fields, CommonRecordFields)
    assert (fields.schema_version, fields.record_type, fields.precision) == (1, "benchmark", "fp16")
    assert fields.architecture == {"name": "example"}
    with pytest.raises(TypeError):
        fields.architecture["name"] = "other"  # type: ignore[index]
    assert validate_common_record(_record()).precision is None


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"schema_version": 0}, "schema_version"),
        ({"schema_version": True}, "schema_version"),
        ({"record_type": ""}, "record_type"),
        ({"architecture": {}}, "architecture"),
        ({"architecture": {"x": float("nan")}}, "architecture"),
        ({"environment_id": 7}, "environment_id"),
        ({"executed_at": "2026-12-01 09:00:00"}, "executed_at"),
        ({"executed_at": "2026-12-01T09:00:00"}, "executed_at"),
        ({"executed_at": "2026-13-01T09:00:00Z"}, "executed_at"),
        ({"environment": []}, "environment"),
        ({"artifacts": None}, "artifacts"),
        ({"precision": ""}, "precision"),
    ],
    ids=[
        "version-zero",
        "version-bool",
        "type-empty",
        "architecture-empty",
        "architecture-nan",
        "environment-id",
        "no-T",
        "no-offset",
        "month-13",
        "environment-list",
        "artifacts-none",
        "precision-empty",
    ],
)
def test_common_field_rules(overrides: dict[str, object], field: str) -> None:
    with pytest.raises(VerificationInputError, match=f"record-field.*{field}"):
        validate_common_record(_record(**overrides))


def test_report_records_turn_any_finding_value_into_json() -> None:
    finding = VerificationFinding(
        "output-mismatch", "p", float("inf"), (1, {"a": ValueError("bad")}), "d"
    )
    report = VerificationReport("s", (CheckResult("c", "failed", (finding,)),))
    record = report_record(report)
    assert record == {
        "scope": "s",
        "status": "failed",
        "checks": [
            {
                "name": "c",
                "status": "failed",
                "findings": [
                    {
                        "code": "output-mismatch",
                        "path": "p",
                        "observed": "inf",
                        "expected": [1, {"a": "ValueError: bad"}],
                        "detail": "d",
                    }
                ],
            }
        ],
    }
    canonical_json(record)


def _reports() -> tuple[VerificationReport, ...]:
    finding = VerificationFinding("evidence-missing", "x", 0, ">=1", "none")
    return (
        VerificationReport("a", (CheckResult("x", "unverified", (finding,)),)),
        VerificationReport("b", (CheckResult("y", "passed", ()),)),
    )


def test_a_verification_record_carries_the_common_fields_and_the_run() -> None:
    record = verification_record(
        _reports(),
        architecture={"name": "example", "distribution": "pixtreme-arch-example"},
        artifacts={"distribution": {"name": "pixtreme-arch-example", "version": "0.1"}},
    )
    fields = validate_common_record(record)
    assert (fields.schema_version, fields.record_type) == (1, "verification")
    assert fields.environment_id == canonical_sha256(record["environment"])
    assert record["status"] == "unverified"
    assert record["counts"] == {"passed": 1, "failed": 0, "unverified": 1, "not-applicable": 0}
    assert [report["scope"] for report in record["reports"]] == ["a", "b"]  # type: ignore[attr-defined]


def test_a_verification_record_keeps_given_fields() -> None:
    record = verification_record(
        (),
        architecture={"name": "x"},
        artifacts={"none": True},
        environment={"machine": "test"},
        environment_id="lab-1",
        executed_at="2026-12-01T09:00:00+00:00",
        precision="fp32",
    )
    assert (record["environment_id"], record["precision"]) == ("lab-1", "fp32")
    assert record["status"] == "unverified"


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"artifacts": {}}, "artifacts"),
        ({"architecture": {"x": {1, 2}}}, "architecture"),
        ({"executed_at": "yesterday"}, "executed_at"),
    ],
    ids=["no-artifacts", "architecture-not-json", "bad-time"],
)
def test_an_invalid_verification_record_is_refused(options: dict[str, Any], pattern: str) -> None:
    fields: dict[str, Any] = {"architecture": {"name": "x"}, "artifacts": {"a": 1}, **options}
    with pytest.raises(VerificationInputError, match=pattern):
        verification_record(_reports(), **fields)


def test_write_record_writes_canonical_json_and_returns_its_digest(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    digest = write_record(target, _record())
    data = target.read_bytes()
    assert data == canonical_json(_record()) + b"\n"
    assert digest == hashlib.sha256(data).hexdigest()
    assert write_record(str(target), _record(record_type="second")) != digest
    assert json.loads(target.read_bytes())["record_type"] == "second"
    assert [path.name for path in tmp_path.iterdir()] == ["record.json"]


def test_a_failed_write_keeps_the_previous_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "record.json"
    write_record(target, _record())
    before = target.read_bytes()
    # issue 16: a record that cannot be encoded must not truncate the good file
    with pytest.raises(VerificationInputError, match="lone surrogate"):
        write_record(target, _record(module_field="\udcff"))
    assert target.read_bytes() == before

    def full_disk(handle: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(VerificationExecutionError, match="No space left"):
        write_record(target, _record(record_type="other"))
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["record.json"]


@pytest.mark.parametrize(
    ("target", "pattern"),
    [
        (lambda root: root, "not a regular file"),
        (lambda root: root / "missing" / "r.json", "folder of"),
        (lambda root: "", "nonempty str path"),
        (lambda root: Path("/dev/null"), "not a regular file"),
        (lambda root: f"{root}/nul\x00.json", "NUL"),
    ],
    ids=["a-directory", "missing-folder", "empty", "device", "nul"],
)
def test_write_record_refuses_targets_it_must_not_replace(
    tmp_path: Path, target: Callable[[Path], Any], pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        write_record(target(tmp_path), _record())


def test_write_record_validates_the_common_fields_first(tmp_path: Path) -> None:
    with pytest.raises(VerificationInputError, match="record-field"):
        write_record(tmp_path / "r.json", {"schema_version": 1})
    assert not (tmp_path / "r.json").exists()


_FUZZ_BYTES = st.one_of(
    st.binary(max_size=200),
    _JSON.map(lambda value: json.dumps(value).encode()),
    st.lists(
        st.sampled_from(
            [b"{", b"}", b"[", b"]", b'"a":', b"1e999", b"NaN", b",", b'"\\ud800"', b"-0", b"\xff"]
        ),
        max_size=40,
    ).map(b"".join),
)


@settings(
    max_examples=300, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=_FUZZ_BYTES)
def test_fuzzed_references_raise_only_documented_errors(tmp_path: Path, data: bytes) -> None:
    reference = _reference(tmp_path, "fuzz.json", data)
    try:
        value = load_json_reference(reference, root=tmp_path)
    except VerificationInputError:
        return
    assert canonical_json(value) is not None  # whatever loads is strict JSON


@settings(max_examples=200, derandomize=True)
@given(
    value=st.recursive(
        st.none() | st.floats() | st.text() | st.integers() | st.binary(max_size=3),
        lambda children: (
            st.lists(children, max_size=3)
            | st.tuples(children)
            | st.dictionaries(st.text(max_size=3) | st.integers(), children, max_size=3)
        ),
        max_leaves=10,
    )
)
def test_fuzzed_values_encode_or_raise_only_the_input_error(value: object) -> None:
    try:
        data = canonical_json(value)
    except VerificationInputError:
        return
    assert json.loads(data) is not None or data == b"null"

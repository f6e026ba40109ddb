"""validate_record: the common record validation (header, required keys, finite numbers,
portable relative paths and the canonical form round trip)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pixtreme.infer.errors import RecordError
from pixtreme.infer.verification import (
    RECORD_SCHEMA,
    VerificationReport,
    canonical_json,
    has_error_shape,
    load_json_reference,
    portable_path,
    record_header,
    validate_record,
    write_record,
)

pytestmark = pytest.mark.req("issue6.record-validation")

_HEADER = {"schema": RECORD_SCHEMA, "kind": "demo", "version": 2}

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),  # hypothesis leaves out lone surrogates by default
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


def test_header_names_schema_kind_and_version() -> None:
    assert record_header("demo", version=2) == _HEADER
    assert record_header("demo")["version"] == 1


@given(st.dictionaries(st.text(max_size=6).filter(lambda key: key not in _HEADER), _json))
def test_plain_json_records_validate_and_are_returned_unchanged(body: dict[str, Any]) -> None:
    record = {**_HEADER, **body}
    assert validate_record(record, kind="demo", version=2) is record


def test_a_written_record_reads_back_valid(tmp_path: Path) -> None:
    (tmp_path / "refs").mkdir()
    record = {
        **record_header("reference"),
        "image": portable_path(tmp_path / "refs" / "a.png", root=tmp_path),
        "psnr_db": 41.5,
    }
    digest = write_record(tmp_path / "r.json", validate_record(record, path_keys={"image"}))
    loaded = load_json_reference(tmp_path / "r.json", sha256=digest)
    assert validate_record(loaded, kind="reference", required=("image",), path_keys={"image"}) == (
        record
    )


@pytest.mark.parametrize(
    ("record", "options", "pattern"),
    [
        ([1, 2], {}, "received a list, not a JSON object"),
        ({"kind": "demo", "version": 2}, {}, r"\$\.schema is None"),
        ({**_HEADER, "schema": "other/record"}, {}, r"\$\.schema is 'other/record'"),
        ({**_HEADER, "kind": ""}, {}, r"\$\.kind is '', expected a non-empty string"),
        (_HEADER, {"kind": "report"}, r"\$\.kind is 'demo', expected 'report'"),
        ({**_HEADER, "version": 0}, {}, r"\$\.version is 0, expected an int >= 1"),
        ({**_HEADER, "version": True}, {}, r"\$\.version is True"),
        ({**_HEADER, "version": "2"}, {}, r"\$\.version is '2'"),
        (_HEADER, {"version": 3}, r"\$\.version is 2, expected 3 for kind 'demo'"),
        (_HEADER, {"required": ("scope", "checks")}, r"missing required key\(s\) \['checks'"),
        ({**_HEADER, "psnr": math.inf}, {}, r"\$\.psnr is the non-finite number inf"),
        ({**_HEADER, "a": [{"b": math.nan}]}, {}, r"\$\.a\[0\]\.b is the non-finite number nan"),
        ({**_HEADER, "a": {1: "x"}}, {}, r"\$\.a has the key 1 \(int\)"),
        ({**_HEADER, "a": (1, 2)}, {}, r"\$\.a is a tuple"),
        ({**_HEADER, "a": {1, 2}}, {}, r"\$\.a is a set"),
        ({**_HEADER, "a": b"x"}, {}, r"\$\.a is a bytes"),
        ({**_HEADER, "text": "\ud800"}, {}, "not encodable as UTF-8"),
    ],
    ids=[
        "not-a-mapping",
        "schema-missing",
        "schema-other",
        "kind-empty",
        "kind-other",
        "version-zero",
        "version-bool",
        "version-str",
        "version-other",
        "required",
        "infinity",
        "nested-nan",
        "int-key",
        "tuple",
        "set",
        "bytes",
        "lone-surrogate",
    ],
)
def test_invalid_records_are_rejected(record: object, options: Any, pattern: str) -> None:
    with pytest.raises(RecordError, match=pattern) as caught:
        validate_record(record, **options)
    assert has_error_shape(str(caught.value))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("../outside.json", "has a '..' segment"),
        ("refs/../../outside.json", "has a '..' segment"),
        ("/abs/ref.json", "is absolute"),
        ("C:/refs/ref.json", "is absolute"),
        ("refs\\ref.json", "contains a backslash"),
        ("refs//ref.json", "has an empty or '.' segment"),
        ("./ref.json", "has an empty or '.' segment"),
        ("", "is not a non-empty string"),
        (3, "is not a non-empty string"),
    ],
    ids=[
        "dotdot",
        "nested-dotdot",
        "absolute",
        "drive",
        "backslash",
        "empty-segment",
        "dot",
        "empty",
        "number",
    ],
)
def test_path_keys_hold_portable_relative_paths(value: object, problem: str) -> None:
    with pytest.raises(RecordError, match=re.escape(f"$.refs.image = {value!r} {problem}")):
        validate_record({**_HEADER, "refs": {"image": value}}, path_keys={"image"})
    with pytest.raises(RecordError, match=re.escape(problem)):
        validate_record({**_HEADER, "images": ["ok/a.png", value]}, path_keys={"images"})


def test_path_keys_accept_relative_paths_lists_and_none() -> None:
    record = {**_HEADER, "image": "refs/a.png", "images": ["a.png", "b/c.png"], "mask": None}
    assert validate_record(record, path_keys={"image", "images", "mask"}) is record
    # keys not named in path_keys are not paths: a finding path such as "../x" is plain text
    assert validate_record({**_HEADER, "path": "../x"}) is not None


def test_round_trip_rejects_values_that_serialize_differently() -> None:
    class Loud(str):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, Loud) and str.__eq__(self, other)

        __hash__ = str.__hash__

    with pytest.raises(RecordError, match="differs from its canonical form parsed back"):
        validate_record({**_HEADER, "a": Loud("x")})


def test_report_records_validate_inside_a_header() -> None:
    report = VerificationReport(scope="demo", checks=())
    record = {**record_header("verification"), "reports": [report.as_record()]}
    assert canonical_json(validate_record(record, required=("reports",))).startswith("{")

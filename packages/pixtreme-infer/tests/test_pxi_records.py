"""Canonical JSON records, digests, strict references and portable paths."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pixtreme.infer.errors import RecordError
from pixtreme.infer.verification._records import (
    canonical_json,
    load_json_reference,
    parse_json_strict,
    portable_path,
    record_digest,
    sha256_hex,
    write_record,
)

pytestmark = pytest.mark.req("issue6.records")

_json = st.recursive(
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


def test_canonical_form() -> None:
    assert canonical_json({"b": 1, "a": [1.5, "é"]}) == '{"a":[1.5,"é"],"b":1}'
    assert record_digest({"a": 1}) == hashlib.sha256(b'{"a":1}').hexdigest()
    assert sha256_hex("x") == sha256_hex(b"x")


@given(_json)
def test_canonical_json_round_trips_through_the_strict_parser(value: object) -> None:
    text = canonical_json(value)
    assert parse_json_strict(text) == value
    assert canonical_json(parse_json_strict(text)) == text


@pytest.mark.parametrize(
    ("value", "pattern"),
    [(float("nan"), "Out of range float"), ({"a": {1, 2}}, "not JSON serializable")],
    ids=["nan", "set"],
)
def test_canonical_json_rejects(value: object, pattern: str) -> None:
    with pytest.raises(RecordError, match=pattern):
        canonical_json(value)


def test_write_and_load_reference(tmp_path: Path) -> None:
    path = tmp_path / "ref.json"
    digest = write_record(path, {"psnr": 41.5, "name": "x"})
    assert path.read_text(encoding="utf-8") == '{"name":"x","psnr":41.5}\n'
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    assert load_json_reference(path, sha256=digest.upper()) == {"name": "x", "psnr": 41.5}


@pytest.mark.req("issue6.references")
@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ('{"a": 1, "a": 2}', "key 'a' appears more than once"),
        ('{"a": {"b": 1, "b": 1}}', "key 'b' appears more than once"),
        ('{"a": NaN}', "non-standard constant NaN"),
        ("[Infinity]", "non-standard constant Infinity"),
        ('{"a": 1', "is not valid JSON"),
    ],
    ids=["duplicate", "nested-duplicate", "nan", "infinity", "truncated"],
)
def test_strict_references_reject(tmp_path: Path, text: str, pattern: str) -> None:
    path = tmp_path / "ref.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError, match=pattern):
        load_json_reference(path, sha256=sha256_hex(text))


@pytest.mark.req("issue6.references")
def test_reference_digest_and_read_errors(tmp_path: Path) -> None:
    path = tmp_path / "ref.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(RecordError, match=r"ref\.json has sha256 .*, expected 00"):
        load_json_reference(path, sha256="00" * 32)
    with pytest.raises(RecordError, match="FileNotFoundError"):
        load_json_reference(tmp_path / "absent.json", sha256="00")
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(RecordError, match="JSON references are UTF-8"):
        load_json_reference(path, sha256=sha256_hex(b"\xff\xfe"))


def test_portable_path(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert portable_path(tmp_path / "a" / "b.json", root=tmp_path) == "a/b.json"
    with pytest.raises(RecordError, match="is not under"):
        portable_path(tmp_path.parent / "elsewhere.json", root=tmp_path)

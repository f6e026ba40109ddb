"""inspect_wheel and inspect_sdist: inventories, hostile archives (issue 16), limits and fuzzing."""

from __future__ import annotations

import io
import stat
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pixtreme.infer.verification import _archives
from pixtreme.infer.verification.contracts import (
    VerificationExecutionError,
    VerificationInputError,
)
from pixtreme.infer.verification.distribution import (
    DistributionInventory,
    DistributionPolicy,
    inspect_sdist,
    inspect_wheel,
    verify_distribution,
)

pytestmark = pytest.mark.req("spec.verification.archive-inventory")

INFO = "pixtreme_arch_demo-1.2.3.dist-info"
METADATA = (
    "Metadata-Version: 2.4\n"
    "Name: pixtreme_arch.Demo\n"
    "Version: 1.2.3\n"
    "Requires-Dist: pixtreme-infer[ort, verify]>=0.15.1\n"
    'Requires-Dist: Tensor_RT>=10; extra == "trt"\n'
    "Provides-Extra: TRT\n"
    "\n"
    "A long description that is not metadata.\n"
)
ENTRY_POINTS = "[console_scripts]\nDemo-Tool = pixtreme.infer.demo:main\n[other]\nx = y\n"

_DOCUMENTED = (VerificationInputError, VerificationExecutionError)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _wheel(path: Path, members: dict[str, bytes | str], *, info: str = INFO) -> Path:
    contents = {f"{info}/METADATA": METADATA, **members}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            if data is not None:
                archive.writestr(name, data)
    return path


def _member(
    name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, **extra: Any
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    for key, value in extra.items():
        setattr(info, key, value)
    return info, data


def _sdist(path: Path, members: list[tuple[tarfile.TarInfo, bytes]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as archive:  # type: ignore[call-overload]
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def _standard_sdist(path: Path, *extra: tuple[tarfile.TarInfo, bytes], mode: str = "w:gz") -> Path:
    top = "pixtreme_arch_demo-1.2.3"
    members = [
        _member(top, kind=tarfile.DIRTYPE),
        _member(f"{top}/PKG-INFO", METADATA.encode()),
        _member(f"{top}/pyproject.toml", b"[project]\n"),
        _member(f"{top}/src/pixtreme/infer/demo/__init__.py", b""),
        *extra,
    ]
    return _sdist(path, members, mode)


def test_a_wheel_inventory_is_read_without_importing(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path / "demo.whl",
        {
            "pixtreme/infer/demo/__init__.py": "raise SystemExit('never imported')\n",
            "pixtreme/infer/demo/data/": "",
            f"{INFO}/entry_points.txt": ENTRY_POINTS,
        },
    )
    inventory = inspect_wheel(wheel)
    assert inventory == DistributionInventory(
        kind="wheel",
        source=Path("elsewhere"),  # not compared
        files=(
            "pixtreme/infer/demo/__init__.py",
            f"{INFO}/METADATA",
            f"{INFO}/entry_points.txt",
        ),
        name="pixtreme-arch-demo",
        version="1.2.3",
        requires_dist=("pixtreme-infer[ort, verify]>=0.15.1", 'Tensor_RT>=10; extra == "trt"'),
        extras=("trt",),
        console_scripts=(("Demo-Tool", "pixtreme.infer.demo:main"),),
    )
    assert inventory.source == wheel


@pytest.mark.parametrize("mode", ["w:gz", "w:bz2", "w:xz", "w"], ids=["gz", "bz2", "xz", "plain"])
def test_an_sdist_inventory_removes_its_wrapper(tmp_path: Path, mode: str) -> None:
    scripts = _member(
        "pixtreme_arch_demo-1.2.3/src/demo.egg-info/entry_points.txt", ENTRY_POINTS.encode()
    )
    inventory = inspect_sdist(_standard_sdist(tmp_path / "demo.tar.gz", scripts, mode=mode))
    assert inventory.kind == "sdist"
    assert inventory.files == (
        "PKG-INFO",
        "pyproject.toml",
        "src/demo.egg-info/entry_points.txt",
        "src/pixtreme/infer/demo/__init__.py",
    )
    assert (inventory.name, inventory.version, inventory.extras) == (
        "pixtreme-arch-demo",
        "1.2.3",
        ("trt",),
    )
    assert inventory.console_scripts == (("Demo-Tool", "pixtreme.infer.demo:main"),)


def test_an_sdist_without_egg_info_has_no_console_scripts(tmp_path: Path) -> None:
    assert inspect_sdist(_standard_sdist(tmp_path / "demo.tar.gz")).console_scripts == ()


def test_only_the_top_level_dist_info_is_metadata(tmp_path: Path) -> None:
    # issue 16: a nested "*.dist-info/" folder is an ordinary member, visible to the policy
    wheel = _wheel(
        tmp_path / "demo.whl",
        {
            "torch/fake.dist-info/METADATA": "Name: torch\nVersion: 9\n",
            "pixtreme/__init__.dist-info/__init__.py": "",
        },
    )
    inventory = inspect_wheel(wheel)
    assert inventory.name == "pixtreme-arch-demo"
    policy = DistributionPolicy(
        "pixtreme-arch-demo", forbidden_path_patterns=("torch/*", "pixtreme/__init__*")
    )
    paths = [finding.path for finding in verify_distribution(inventory, policy).checks[0].findings]
    assert paths == ["pixtreme/__init__.dist-info/__init__.py", "torch/fake.dist-info/METADATA"]


def test_a_dist_info_folder_named_with_metadata_keeps_its_entry_points(tmp_path: Path) -> None:
    # issue 16: the entry-points path is built from the folder, not by rewriting "METADATA"
    info = "pixtreme_METADATA-1.0.dist-info"
    metadata = "Name: pixtreme-METADATA\nVersion: 1.0\n"
    wheel = tmp_path / "odd.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{info}/METADATA", metadata)
        archive.writestr(f"{info}/entry_points.txt", "[console_scripts]\nodd = m:f\n")
    assert inspect_wheel(wheel).console_scripts == (("odd", "m:f"),)


def _zip_with_method_99(path: Path) -> Path:
    _wheel(path, {})
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        start = data.find(signature)
        data[start + offset : start + offset + 2] = (99).to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


def _zip_symlink(path: Path) -> Path:
    _wheel(path, {})
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo("pixtreme/infer/demo/link.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "../../../__init__.py")
    return path


_BAD_WHEELS: list[Any] = [
    pytest.param(
        lambda p: _write(p, b"not a zip"),
        VerificationExecutionError,
        "archive-read",
        id="not-a-zip",
    ),
    pytest.param(
        lambda p: p.with_name("absent.whl"),
        VerificationExecutionError,
        "archive-read",
        id="missing",
    ),
    pytest.param(
        lambda p: _write(p, _wheel(p, {}).read_bytes()[:-30]),
        VerificationExecutionError,
        "archive-read",
        id="truncated",
    ),
    pytest.param(
        lambda p: _wheel(p, {"other-2.0.dist-info/METADATA": METADATA}),
        VerificationInputError,
        "archive-metadata",
        id="two-dist-infos",
    ),
    pytest.param(
        lambda p: _wheel(p, {}, info="nested/x-1.dist-info"),
        VerificationInputError,
        "archive-metadata",
        id="only-nested-metadata",
    ),
    pytest.param(
        lambda p: _wheel(p, {}, info="someone_else-1.2.3.dist-info"),
        VerificationInputError,
        "does not belong",
        id="foreign-dist-info",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/METADATA": "Name: x\n"}),
        VerificationInputError,
        "Name or Version",
        id="no-version",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/METADATA": b"Name: \xff\nVersion: 1\n"}),
        VerificationInputError,
        "archive-metadata",
        id="issue16-metadata-not-utf8",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/entry_points.txt": b"[console_scripts]\nx = \xff\n"}),
        VerificationInputError,
        "archive-metadata",
        id="issue16-entry-points-not-utf8",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/entry_points.txt": "[a]\nx=1\n[a]\n"}),
        VerificationInputError,
        "archive-entry-points",
        id="issue16-duplicate-section",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/entry_points.txt": "[a]\nx=1\nx=2\n"}),
        VerificationInputError,
        "archive-entry-points",
        id="issue16-duplicate-option",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/entry_points.txt": "x = y\n"}),
        VerificationInputError,
        "archive-entry-points",
        id="issue16-missing-section-header",
    ),
    pytest.param(
        lambda p: _wheel(p, {f"{INFO}/entry_points.txt": "[a]\n=\n"}),
        VerificationInputError,
        "archive-entry-points",
        id="issue16-parsing-error",
    ),
    pytest.param(
        _zip_with_method_99,
        VerificationInputError,
        "archive-compression",
        id="issue16-zip-method-99",
    ),
    pytest.param(_zip_symlink, VerificationInputError, "archive-link", id="symlink-member"),
    pytest.param(
        lambda p: _wheel(p, {"../escape.py": ""}),
        VerificationInputError,
        "archive-path",
        id="parent-path",
    ),
    pytest.param(
        lambda p: _wheel(p, {"/abs.py": ""}),
        VerificationInputError,
        "archive-path",
        id="absolute-path",
    ),
    pytest.param(
        lambda p: _wheel(p, {"a\\b.py": ""}),
        VerificationInputError,
        "archive-path",
        id="backslash-path",
    ),
    pytest.param(
        lambda p: _wheel(p, {"a//b.py": ""}),
        VerificationInputError,
        "archive-path",
        id="non-canonical-path",
    ),
]


@pytest.mark.parametrize(("make", "error", "pattern"), _BAD_WHEELS)
def test_bad_wheels_raise_only_documented_errors(
    tmp_path: Path, make: Callable[[Path], Path], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        inspect_wheel(make(tmp_path / "bad.whl"))


def test_a_duplicate_wheel_member_is_refused(tmp_path: Path) -> None:
    path = _wheel(tmp_path / "dup.whl", {"a.py": "1"})
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "a") as archive:
        archive.writestr("a.py", "2")
    with pytest.raises(VerificationInputError, match="duplicate member"):
        inspect_wheel(path)


def test_issue16_a_metadata_bomb_is_refused_by_its_inflation_ratio(tmp_path: Path) -> None:
    bomb = METADATA + "X-Padding: " + " " * (2 * 1024 * 1024) + "\n"
    wheel = _wheel(tmp_path / "bomb.whl", {f"{INFO}/METADATA": bomb})
    assert wheel.stat().st_size < 64 * 1024
    with pytest.raises(VerificationInputError, match=r"archive-limit.*inflates"):
        inspect_wheel(wheel)


def test_issue16_member_reads_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_archives, "MAX_MEMBER_BYTES", 64)
    wheel = _wheel(tmp_path / "big.whl", {})
    with pytest.raises(VerificationInputError, match="above the 64-byte limit"):
        inspect_wheel(wheel)
    sdist = _standard_sdist(tmp_path / "big.tar.gz")
    with pytest.raises(VerificationInputError, match="archive-limit"):
        inspect_sdist(sdist)


def test_issue16_an_sdist_bomb_is_refused_before_it_inflates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_archives, "MAX_MEMBER_BYTES", 1024)
    monkeypatch.setattr(_archives, "MAX_INFLATION_RATIO", 4)
    zeros = _member("pixtreme_arch_demo-1.2.3/zeros.bin", bytes(1024 * 1024))
    sdist = _standard_sdist(tmp_path / "bomb.tar.gz", zeros)
    with pytest.raises(VerificationInputError, match="inflate past"):
        inspect_sdist(sdist)


def test_archive_member_counts_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_archives, "MAX_ARCHIVE_MEMBERS", 3)
    wheel = _wheel(tmp_path / "many.whl", {f"m{index}.py": "" for index in range(5)})
    with pytest.raises(VerificationInputError, match="3-member limit"):
        inspect_wheel(wheel)
    with pytest.raises(VerificationInputError, match="more than 3 members"):
        inspect_sdist(_standard_sdist(tmp_path / "many.tar.gz"))


_TOP = "pixtreme_arch_demo-1.2.3"
_BAD_SDISTS: list[Any] = [
    pytest.param(
        lambda p: _write(p, b"plain"),
        VerificationExecutionError,
        "archive-read",
        id="not-a-tar",
    ),
    pytest.param(
        lambda p: _write(p, _standard_sdist(p).read_bytes()[:60]),
        VerificationExecutionError,
        "archive-read",
        id="issue16-truncated-gz",
    ),
    pytest.param(
        lambda p: _sdist(p, [_member(f"{_TOP}/README", b"")]),
        VerificationInputError,
        "PKG-INFO",
        id="no-pkg-info",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member("other-1.0/x.py")),
        VerificationInputError,
        "one wrapper",
        id="two-wrappers",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member("loose.py")),
        VerificationInputError,
        "archive-wrapper",
        id="file-outside-wrapper",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member("")),
        VerificationInputError,
        "archive-path",
        id="issue16-empty-name",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member(f"{_TOP}/../x.py")),
        VerificationInputError,
        "archive-path",
        id="parent-path",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member("/etc/x.py")),
        VerificationInputError,
        "archive-path",
        id="absolute-path",
    ),
    pytest.param(
        lambda p: _standard_sdist(
            p,
            _member(
                f"{_TOP}/src/pixtreme/__init__.py",
                kind=tarfile.SYMTYPE,
                linkname="infer/demo/__init__.py",
            ),
        ),
        VerificationInputError,
        "archive-link.*symbolic",
        id="issue16-symlink",
    ),
    pytest.param(
        lambda p: _standard_sdist(
            p,
            _member(
                f"{_TOP}/src/pixtreme/__init__.py",
                kind=tarfile.LNKTYPE,
                linkname=f"{_TOP}/pyproject.toml",
            ),
        ),
        VerificationInputError,
        "archive-link.*hard",
        id="issue16-hardlink",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member(f"{_TOP}/dev", kind=tarfile.CHRTYPE)),
        VerificationInputError,
        "not a regular file",
        id="device-member",
    ),
    pytest.param(
        lambda p: _sdist(
            p,
            [
                _member(f"{_TOP}/PKG-INFO", kind=tarfile.SYMTYPE, linkname="pyproject.toml"),
                _member(f"{_TOP}/pyproject.toml", METADATA.encode()),
            ],
        ),
        VerificationInputError,
        "archive-link",
        id="linked-pkg-info",
    ),
    pytest.param(
        lambda p: _standard_sdist(p, _member(f"{_TOP}/pyproject.toml", b"x")),
        VerificationInputError,
        "duplicate member",
        id="duplicate",
    ),
    pytest.param(
        lambda p: _sdist(p, [_member(f"{_TOP}/PKG-INFO", b"Name: x\nVersion: \xff\n")]),
        VerificationInputError,
        "not UTF-8",
        id="issue16-pkg-info-not-utf8",
    ),
    pytest.param(
        lambda p: _standard_sdist(
            p,
            _member(f"{_TOP}/a.egg-info/entry_points.txt", b"[a]"),
            _member(f"{_TOP}/b.egg-info/entry_points.txt", b"[a]"),
        ),
        VerificationInputError,
        "several entry-point files",
        id="two-egg-infos",
    ),
]


@pytest.mark.parametrize(("make", "error", "pattern"), _BAD_SDISTS)
def test_bad_sdists_raise_only_documented_errors(
    tmp_path: Path, make: Callable[[Path], Path], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        inspect_sdist(make(tmp_path / "bad.tar.gz"))


_NAMES = st.sampled_from(
    [
        f"{INFO}/METADATA",
        f"{INFO}/entry_points.txt",
        "pixtreme/infer/demo/x.py",
        "other-1.dist-info/METADATA",
        "",
        "../x",
        "/abs",
        "a//b",
        "a\\b",
        "é.py",
        "torch/fake.dist-info/METADATA",
    ]
)
_CONTENT = st.one_of(
    st.just(METADATA.encode()),
    st.just(ENTRY_POINTS.encode()),
    st.binary(max_size=64),
    st.sampled_from([b"[a]\nx=1\n[a]\n", b"x = y", b"\xff\xfe", b"Name: x\n"]),
)


@st.composite
def _zip_bytes(draw: st.DrawFn) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore")  # duplicate names are part of the fuzzing
        for name in draw(st.lists(_NAMES, max_size=6)):
            info = zipfile.ZipInfo(name or "x")
            info.compress_type = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
            if draw(st.booleans()):
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, draw(_CONTENT))
    data = bytearray(buffer.getvalue())
    for _ in range(draw(st.integers(0, 3))):  # flip a few bytes: corrupt headers and sizes
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data[: draw(st.integers(0, len(data)))] if draw(st.booleans()) else data)


@st.composite
def _tar_bytes(draw: st.DrawFn) -> bytes:
    buffer = io.BytesIO()
    mode = draw(st.sampled_from(["w:gz", "w", "w:bz2", "w:xz"]))
    with tarfile.open(fileobj=buffer, mode=mode) as archive:  # type: ignore[call-overload]
        for _ in range(draw(st.integers(0, 5))):
            name = draw(
                st.sampled_from(
                    [
                        f"{_TOP}/PKG-INFO",
                        f"{_TOP}/x.py",
                        f"{_TOP}/a.egg-info/entry_points.txt",
                        "",
                        "top",
                        "../x",
                        f"{_TOP}/src/pixtreme/__init__.py",
                    ]
                )
            )
            kind = draw(
                st.sampled_from(
                    [
                        tarfile.REGTYPE,
                        tarfile.SYMTYPE,
                        tarfile.LNKTYPE,
                        tarfile.DIRTYPE,
                        tarfile.CHRTYPE,
                        tarfile.FIFOTYPE,
                    ]
                )
            )
            data = draw(_CONTENT)
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = draw(st.sampled_from(["", "x", f"{_TOP}/x.py", "/etc/passwd"]))
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    data = bytearray(buffer.getvalue())
    for _ in range(draw(st.integers(0, 3))):
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data[: draw(st.integers(0, len(data)))] if draw(st.booleans()) else data)


def _inspect_or_documented(inspect: Callable[[Path], DistributionInventory], path: Path) -> None:
    try:
        inventory = inspect(path)
    except _DOCUMENTED:
        return
    assert inventory.name
    assert inventory.version
    assert all(not name.startswith("/") and ".." not in name.split("/") for name in inventory.files)


@pytest.mark.req("issue16.fuzz")
@settings(
    max_examples=250,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.one_of(_zip_bytes(), st.binary(max_size=300)))
def test_fuzzed_wheels_raise_only_documented_errors(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.whl"
    path.write_bytes(data)
    _inspect_or_documented(inspect_wheel, path)


@pytest.mark.req("issue16.fuzz")
@settings(
    max_examples=250,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.one_of(_tar_bytes(), st.binary(max_size=300)))
def test_fuzzed_sdists_raise_only_documented_errors(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.tar.gz"
    path.write_bytes(data)
    _inspect_or_documented(inspect_sdist, path)

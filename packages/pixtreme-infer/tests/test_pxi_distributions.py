"""Wheel/sdist inspection and the distribution policy check (synthetic and real archives)."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from pixtreme.infer.errors import ContractError, RecordError
from pixtreme.infer.verification import CheckStatus
from pixtreme.infer.verification._distributions import (
    DistributionPolicy,
    architecture_policy,
    check_distribution_policy,
    core_policy,
    inspect_sdist,
    inspect_wheel,
    requirement_name,
)

pytestmark = pytest.mark.req("issue6.distributions")

PACKAGE_ROOT = Path(__file__).resolve().parents[1]

METADATA = """Metadata-Version: 2.4
Name: pixtreme-arch-demo
Version: 1.2.3
Requires-Dist: pixtreme-infer
Requires-Dist: Tensor_RT>=10; extra == "trt"
Provides-Extra: trt
"""


def _wheel(path: Path, files: dict[str, str], entry_points: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr("pixtreme_arch_demo-1.2.3.dist-info/METADATA", METADATA)
        if entry_points is not None:
            archive.writestr("pixtreme_arch_demo-1.2.3.dist-info/entry_points.txt", entry_points)
    return path


def _sdist(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"pixtreme_arch_demo-1.2.3/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_requirement_names_are_normalized() -> None:
    assert requirement_name("Tensor_RT>=10; extra == 'x'") == "tensor-rt"
    assert requirement_name("pixtreme.infer [ort]") == "pixtreme-infer"


def test_inspect_wheel_reads_metadata_without_importing(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path / "demo.whl",
        {"pixtreme/infer/demo/__init__.py": "raise SystemExit('never imported')\n"},
        "[console_scripts]\nDemo-Tool = pixtreme.infer.demo:main\n",
    )
    facts = inspect_wheel(wheel)
    assert (facts.kind, facts.name, facts.version) == ("wheel", "pixtreme-arch-demo", "1.2.3")
    assert facts.requires_dist == ("pixtreme-infer", 'Tensor_RT>=10; extra == "trt"')
    assert facts.extras == ("trt",)
    assert facts.console_scripts == (("Demo-Tool", "pixtreme.infer.demo:main"),)
    assert "pixtreme/infer/demo/__init__.py" in facts.files


def test_policy_flags_every_violation(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path / "demo.whl",
        {
            "pixtreme/__init__.py": "",
            "pixtreme/infer/__init__.py": "",
            "pixtreme/infer/demo/__init__.py": "",
            "pixtreme/infer/other/x.py": "",
        },
    )
    policy = DistributionPolicy(
        name="pixtreme-arch-other",
        allowed_prefixes=("pixtreme/infer/demo/",),
        forbidden_files=("pixtreme/__init__.py", "pixtreme/infer/__init__.py"),
        forbidden_requirements=("tensor.rt",),
        required_console_scripts=("demo",),
    )
    report = check_distribution_policy(inspect_wheel(wheel), policy)
    assert report.status is CheckStatus.FAILED
    assert [f.code for f in report.check("distribution-name").findings] == ["name-mismatch"]
    files = report.check("distribution-files").findings
    assert [(f.code, f.path) for f in files] == [
        ("forbidden-file", "pixtreme/__init__.py"),
        ("forbidden-file", "pixtreme/infer/__init__.py"),
        ("file-outside-subtree", "pixtreme/__init__.py"),
        ("file-outside-subtree", "pixtreme/infer/__init__.py"),
        ("file-outside-subtree", "pixtreme/infer/other/x.py"),
    ]
    assert [f.code for f in report.check("distribution-requirements").findings] == [
        "forbidden-requirement"
    ]
    assert [f.expected for f in report.check("distribution-console-scripts").findings] == ["demo"]


def test_architecture_policy_passes_a_clean_wheel(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "demo.whl", {"pixtreme/infer/demo/__init__.py": ""})
    report = check_distribution_policy(
        inspect_wheel(wheel), architecture_policy("demo", "pixtreme_arch.demo")
    )
    assert report.status is CheckStatus.PASSED


def test_inspect_sdist_and_its_policy(tmp_path: Path) -> None:
    sdist = _sdist(
        tmp_path / "demo.tar.gz",
        {
            "PKG-INFO": METADATA,
            "pyproject.toml": '[project]\nname = "x"\n[project.scripts]\ndemo = "m:f"\n',
            "src/pixtreme/infer/__init__.py": "",
            "src/pixtreme/infer/demo/__init__.py": "",
        },
    )
    facts = inspect_sdist(sdist)
    assert facts.kind == "sdist"
    assert facts.console_scripts == (("demo", "m:f"),)
    assert "src/pixtreme/infer/demo/__init__.py" in facts.files
    report = check_distribution_policy(facts, architecture_policy("demo", "pixtreme-arch-demo"))
    assert [f.path for f in report.check("distribution-files").findings] == [
        "src/pixtreme/infer/__init__.py"
    ]


def _not_zip(path: Path) -> object:
    path.write_bytes(b"not a zip")
    return inspect_wheel(path)


def _absent(path: Path) -> object:
    return inspect_wheel(path.with_name("absent.whl"))


def _two_metadata(path: Path) -> object:
    _wheel(path, {})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("second-1.0.dist-info/METADATA", METADATA)
    return inspect_wheel(path)


def _no_pkg_info(path: Path) -> object:
    return inspect_sdist(_sdist(path, {"README": ""}))


def _not_tar(path: Path) -> object:
    path.write_bytes(b"plain")
    return inspect_sdist(path)


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (_not_zip, "BadZipFile"),
        (_absent, "FileNotFoundError"),
        (_two_metadata, r"expected one \*.dist-info/METADATA"),
        (_no_pkg_info, "no PKG-INFO"),
        (_not_tar, "ReadError"),
    ],
    ids=["not-zip", "absent", "two-metadata", "no-pkg-info", "not-tar"],
)
def test_inspection_rejects_bad_archives(
    tmp_path: Path, make: Callable[[Path], object], pattern: str
) -> None:
    with pytest.raises(RecordError, match=pattern):
        make(tmp_path / "bad.whl")


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"allowed_prefixes": ()}, "allowed_prefixes must be a non-empty tuple"),
        ({"allowed_prefixes": ("pixtreme/infer",)}, "ending in '/'"),
        ({"name": ""}, "name must be a non-empty string"),
    ],
)
def test_policy_rejects(fields: dict[str, object], pattern: str) -> None:
    base: dict[str, object] = {"name": "x", "allowed_prefixes": ("pixtreme/infer/",)}
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        DistributionPolicy(**base)  # type: ignore[arg-type]
    with pytest.raises(ContractError, match="architecture must be an identifier"):
        architecture_policy("a/b", "x")


@pytest.mark.req("spec.packaging.wheel-owns-only-subtree")
@pytest.mark.req("spec.capabilities.no-tensorrt-or-torch")
@pytest.mark.extras("build", "hatchling", "hatch_vcs")
def test_the_real_wheel_and_sdist_meet_the_core_policy(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--sdist",
            "--no-isolation",
            "--outdir",
            str(tmp_path),
            str(PACKAGE_ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    (wheel,) = tmp_path.glob("*.whl")
    (sdist,) = tmp_path.glob("*.tar.gz")
    facts = inspect_wheel(wheel)
    report = check_distribution_policy(facts, core_policy())
    assert report.status is CheckStatus.PASSED, report.as_record()
    assert "pixtreme/infer/__init__.py" in facts.files
    assert "pixtreme/infer/py.typed" in facts.files
    assert not any("cuda_graph" in f and "test" in f for f in facts.files)
    assert ("pixtreme-infer", "pixtreme.infer.cli:console_main") in facts.console_scripts
    assert set(facts.extras) == {"ort", "verify"}
    sdist_report = check_distribution_policy(inspect_sdist(sdist), core_policy())
    assert sdist_report.status is CheckStatus.PASSED, sdist_report.as_record()

"""The verification hook and the pixtreme-infer command (list, verify)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pixtreme.infer
import pytest
from pixtreme.infer import _dispatch
from pixtreme.infer.cli import main
from pixtreme.infer.errors import ContractError
from pixtreme.infer.verification import (
    ArchitectureCases,
    CheckStatus,
    verify_architecture,
)
from pixtreme.infer.verification._records import sha256_hex, validate_record

_PASSING = """
from pixtreme.infer.contracts import Exact, FrameContract, StatelessModuleContract
from pixtreme.infer.verification import (
    ArchitectureCases, CheckResult, CommonContractCases, DlpackAllocationFacts,
    StatelessContractSuite, VerificationReport,
)

_RGB = FrameContract(
    channels=Exact(value="RGB"), colorspace=Exact(value="sRGB"), gamma=Exact(value="sRGB"),
    matrix=Exact(value=None), dtype=Exact(value="float32"),
)
_CONTRACT = StatelessModuleContract(input_frame=_RGB, output_frame=_RGB, input_hw=(8, 8))

def verification_cases():
    return ArchitectureCases(
        architecture="{name}",
        suites=(
            StatelessContractSuite(
                name="{name}/x1",
                contract=_CONTRACT,
                common=CommonContractCases(
                    dlpack_allocation=lambda: DlpackAllocationFacts(
                        source_pointer=16, imported_pointer={pointer}
                    )
                ),
            ),
        ),
        reports=(
            lambda: VerificationReport(
                scope="{name}/onnx", checks=(CheckResult.from_findings("onnx-reference", ()),)
            ),
        ),
        unverified=(("engine-round-trip", "TensorRT is not installed here"),),
    )
"""


@pytest.fixture
def install_architecture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str, str], None]:
    """Create pixtreme/infer/<name>/__init__.py under tmp_path and register it in the map."""
    root = tmp_path / "site" / "pixtreme" / "infer"
    monkeypatch.setattr(pixtreme.infer, "__path__", [*pixtreme.infer.__path__, str(root)])
    created: list[str] = []

    def install(name: str, source: str) -> None:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(textwrap.dedent(source))
        monkeypatch.setitem(_dispatch.ARCHITECTURES, name, f"pixtreme-arch-{name}")
        created.append(name)

    yield install  # type: ignore[misc]
    for name in created:
        sys.modules.pop(f"pixtreme.infer.{name}", None)
        pixtreme.infer.__dict__.pop(name, None)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.req("issue6.hook")
def test_hook_results_become_reports(install_architecture: Callable[[str, str], None]) -> None:
    install_architecture("pxiok", _PASSING.format(name="pxiok", pointer=16))
    imports, *reports = verify_architecture("pxiok")
    assert imports.scope == "pxiok/imports"
    assert imports.check("infer-imports").status is CheckStatus.PASSED
    assert [r.scope for r in reports] == ["pxiok/x1", "pxiok/onnx", "pxiok/declared-gaps"]
    assert reports[0].check("dlpack-allocation").status is CheckStatus.PASSED
    assert reports[0].check("frame-boundary").status is CheckStatus.UNVERIFIED
    assert reports[1].status is CheckStatus.PASSED
    gap = reports[2].check("engine-round-trip")
    assert gap.status is CheckStatus.UNVERIFIED
    assert gap.findings[0].detail == "TensorRT is not installed here"


@pytest.mark.req("issue6.hook")
@pytest.mark.parametrize(
    ("source", "status", "code"),
    [
        ("X = 1\n", CheckStatus.UNVERIFIED, "evidence-missing"),
        (
            "def verification_cases():\n    raise OSError('no weights')\n",
            CheckStatus.FAILED,
            "evidence-raised",
        ),
        ("def verification_cases():\n    return []\n", CheckStatus.FAILED, "evidence-type"),
        (
            "from pixtreme.infer.verification import ArchitectureCases\n"
            "def verification_cases():\n    return ArchitectureCases(architecture='x')\n",
            CheckStatus.UNVERIFIED,
            "evidence-missing",
        ),
        (
            "from pixtreme.infer.verification import ArchitectureCases\n"
            "def verification_cases():\n"
            "    return ArchitectureCases(architecture='x', reports=(lambda: 1 / 0,))\n",
            CheckStatus.FAILED,
            "evidence-raised",
        ),
        (
            "from pixtreme.infer.verification import ArchitectureCases\n"
            "def verification_cases():\n"
            "    return ArchitectureCases(architecture='x', reports=(lambda: 'report',))\n",
            CheckStatus.FAILED,
            "evidence-type",
        ),
    ],
    ids=[
        "no-hook",
        "hook-raises",
        "hook-wrong-type",
        "empty-cases",
        "report-raises",
        "report-wrong-type",
    ],
)
def test_hook_problems_are_reported_not_passed(
    install_architecture: Callable[[str, str], None],
    source: str,
    status: CheckStatus,
    code: str,
) -> None:
    install_architecture("pxihook", source)
    _imports, report = verify_architecture("pxihook")
    assert report.status is status
    assert report.checks[0].findings[0].code == code


@pytest.mark.req("issue6.hook")
@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"architecture": ""}, "architecture must be a non-empty string"),
        ({"suites": ("suite",)}, "suites must be a tuple of StatelessContractSuite"),
        ({"reports": (1,)}, "reports must be a tuple of callables"),
        ({"unverified": (("x",),)}, r"unverified must be \(check name, reason\)"),
    ],
    ids=["architecture", "suites", "reports", "unverified"],
)
def test_architecture_cases_reject(fields: dict[str, object], pattern: str) -> None:
    base: dict[str, object] = {"architecture": "x"}
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        ArchitectureCases(**base)  # type: ignore[arg-type]


@pytest.mark.req("issue6.cli.verify")
def test_verify_prints_a_table_and_writes_the_canonical_record(
    install_architecture: Callable[[str, str], None], tmp_path: Path
) -> None:
    install_architecture("pxiok", _PASSING.format(name="pxiok", pointer=16))
    record_path = tmp_path / "record.json"
    code, out, _ = _run("verify", "pxiok", "--output", str(record_path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["scope", "check", "status", "finding"]
    assert any(line.split()[:3] == ["pxiok/x1", "dlpack-allocation", "passed"] for line in lines)
    assert "pxiok: unverified (3 passed, 0 failed, 8 unverified, 4 not-applicable)" in out
    data = record_path.read_bytes()
    assert f"sha256={sha256_hex(data)}" in out
    record = json.loads(data)
    assert record["status"] == "unverified"
    assert record["distribution"] == "pixtreme-arch-pxiok"
    assert validate_record(record, kind="verification", version=1) == record
    assert (record["schema"], record["kind"], record["version"]) == (
        "pixtreme-infer/record",
        "verification",
        1,
    )
    assert data.decode().rstrip("\n") == json.dumps(
        record, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert _run("verify", "pxiok", "--output", str(record_path), "--strict")[0] == 1


@pytest.mark.req("issue6.cli.verify")
def test_verify_exits_non_zero_on_a_failed_check(
    install_architecture: Callable[[str, str], None], tmp_path: Path
) -> None:
    install_architecture("pxibad", _PASSING.format(name="pxibad", pointer=32))
    code, out, _ = _run("verify", "pxibad", "--output", str(tmp_path / "r.json"))
    assert code == 1
    assert "dlpack-copied" in out
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "failed"


@pytest.mark.req("issue6.cli.verify")
def test_verify_usage_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code, _, err = _run("verify", "exampel", "--output", str(tmp_path / "r.json"))
    assert code == 2
    assert "Did you mean 'example'" in err
    monkeypatch.setitem(_dispatch.ARCHITECTURES, "pxighost", "pixtreme-arch-pxighost")
    code, _, err = _run("verify", "pxighost")
    assert code == 2
    assert "how=pip install pixtreme-arch-pxighost" in err
    assert _run("frobnicate")[0] == 2
    assert not (tmp_path / "r.json").exists()


@pytest.mark.req("issue6.cli.list")
def test_list_shows_architectures_and_extras(
    install_architecture: Callable[[str, str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    install_architecture("pxiok", "")
    monkeypatch.setitem(_dispatch.ARCHITECTURES, "pxighost", "pixtreme-arch-pxighost")
    code, out, _ = _run("list")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "yes" in rows["example"]
    assert rows["pxiok"].split()[2] == "yes"
    assert "no: pip install pixtreme-arch-pxighost" in rows["pxighost"]
    assert rows["ort"].split()[1] in {"yes", "no:"}
    assert rows["verify"].split()[0] == "verify"


@pytest.mark.req("issue6.cli.list")
@pytest.mark.extras("pynvml")
def test_list_explains_an_unusable_nvml() -> None:
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_LibraryNotFound:
        code, out, _ = _run("list")
        assert code == 0
        assert "installed, unusable: pynvml.nvmlInit() raised NVMLError_LibraryNotFound" in out
    else:
        pynvml.nvmlShutdown()
        pytest.skip("NVML loads here: the unusable-NVML row cannot be observed")


@pytest.mark.req("issue6.cli.list")
def test_module_entry_point_runs_in_a_fresh_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pixtreme.infer.cli", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "pixtreme-arch-example" in result.stdout


@pytest.mark.req("issue6.cli.console-script")
def test_console_script_is_installed_and_runs(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("pixtreme-infer")
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}: reinstall the package")
    listed = subprocess.run(
        [str(script), "list"], capture_output=True, text=True, timeout=120, check=False
    )
    assert listed.returncode == 0, listed.stderr
    assert "pixtreme-arch-example" in listed.stdout
    verified = subprocess.run(
        [str(script), "verify", "example", "--output", str(tmp_path / "example.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    record = json.loads((tmp_path / "example.json").read_text())
    assert record["architecture"] == "example"
    assert verified.returncode == (1 if record["status"] == "failed" else 0), verified.stdout


@pytest.mark.req("issue6.import-lint")
def test_verify_lints_the_architectures_imports(
    install_architecture: Callable[[str, str], None],
) -> None:
    install_architecture(
        "pxilint",
        "from pixtreme.infer._validate import fail\n"
        "from pixtreme.infer.frames import TYPE_CHECKING\n",
    )
    imports, _hook = verify_architecture("pxilint")
    check = imports.check("infer-imports")
    assert check.status is CheckStatus.FAILED
    assert [(f.code, f.observed) for f in check.findings] == [
        ("private-module", "pixtreme.infer._validate"),
        ("unknown-name", "pixtreme.infer.frames.TYPE_CHECKING"),
    ]

"""The architecture hook: ArchitectureCases, verify_cases, verify_module, verify_architecture."""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.errors import ArchitectureNotInstalledError, EvidenceUnavailable
from pixtreme.infer.verification import (
    HOOK_NAME,
    ArchitectureCases,
    verify_architecture,
    verify_cases,
    verify_module,
)
from pixtreme.infer.verification.contracts import (
    CheckResult,
    CudaGraphContractSuite,
    StatelessContractSuite,
    VerificationInputError,
    VerificationReport,
)

if TYPE_CHECKING:
    from conftest import Builders

pytestmark = pytest.mark.req("spec.verification.architecture-hook")

_UNAVAILABLE = EvidenceUnavailable(why="needs a GPU", what="no CUDA device", how="run on one")
_NAMES = itertools.count()


def test_the_hook_is_named_verification_cases() -> None:
    assert HOOK_NAME == "verification_cases"


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"architecture": ""}, "architecture holds a nonempty name"),
        ({"suites": [1]}, "suites holds a tuple"),
        ({"suites": ("suite",)}, "suites holds contract suites"),
        ({"reports": ("report",)}, "callables returning VerificationReport"),
        ({"unverified": (("engine-round-trip",),)}, r"\(check name, reason\) string pairs"),
        ({"unverified": (("engine-round-trip", ""),)}, r"\(check name, reason\) string pairs"),
    ],
    ids=["no-name", "suites-list", "suite-type", "report-type", "gap-pair", "gap-reason"],
)
def test_architecture_cases_validate_their_shape(fields: dict[str, Any], pattern: str) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        ArchitectureCases(**{"architecture": "demo", **fields})


def test_a_complete_architecture_passes(build: Builders) -> None:
    graph = CudaGraphContractSuite(build.temporal_suite(), lambda: (build.sequence(3),))
    cases = ArchitectureCases("demo", (build.stateless_suite(), build.temporal_suite(), graph))
    reports = verify_cases(cases)
    assert [report.scope for report in reports] == [
        "demo/module-contract/0",
        "demo/module-contract/1",
        "demo/cuda-graph-contract/2",
    ]
    assert {report.status for report in reports} == {"passed"}
    assert reports[2].checks[-1].name == "graph-replay-equivalence"


@pytest.mark.parametrize(
    ("provider", "status", "code"),
    [
        (RuntimeError("the fixture broke"), "failed", "evidence-raised"),
        (_UNAVAILABLE, "unverified", "evidence-unavailable"),
        (VerificationInputError("frame-boundary/x: bad facts"), "failed", "evidence-invalid"),
    ],
    ids=["raises", "unavailable", "invalid-facts"],
)
def test_a_failing_provider_affects_only_its_own_check(
    build: Builders,
    raises: Callable[[BaseException], Any],
    provider: BaseException,
    status: str,
    code: str,
) -> None:
    suite = build.stateless_suite(frame_boundaries=raises(provider))
    (report,) = verify_cases(ArchitectureCases("demo", (suite,)))
    check = report.check("frame-boundary")
    assert check.status == status
    (finding,) = check.findings
    assert (finding.code, finding.path) == (code, "frame-boundary")
    assert str(provider) in str(finding.observed) + finding.detail
    assert report.check("dlpack-allocation").status == "passed"


def test_a_facts_defect_is_contained_like_a_provider_error(build: Builders) -> None:
    suite = build.stateless_suite(frame_boundaries=lambda: ("not facts",))
    (report,) = verify_cases(ArchitectureCases("demo", (suite,)))
    assert report.check("frame-boundary").findings[0].code == "evidence-invalid"
    assert report.check("engine-round-trip").status == "passed"


def test_a_malformed_suite_fails_as_one_report(build: Builders) -> None:
    suite = StatelessContractSuite(build.temporal(), build.common())
    (report,) = verify_cases(ArchitectureCases("demo", (suite,)))
    assert report.scope == "demo/module-contract/0"
    (check,) = report.checks
    assert (check.name, check.status, check.findings[0].code) == (
        "contract-suite",
        "failed",
        "evidence-raised",
    )


def _report(status: str = "passed") -> VerificationReport:
    return VerificationReport("onnx", (CheckResult("onnx-contract", status, ()),))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "status", "code"),
    [
        (_report, "passed", None),
        (lambda: "report", "failed", "evidence-type"),
        (lambda: 1 / 0, "failed", "evidence-raised"),
        (lambda: (_ for _ in ()).throw(_UNAVAILABLE), "unverified", "evidence-unavailable"),
    ],
    ids=["report", "wrong-type", "raises", "unavailable"],
)
def test_report_callables_are_contained(
    make: Callable[[], Any], status: str, code: str | None
) -> None:
    (report,) = verify_cases(ArchitectureCases("demo", reports=(make,)))
    assert report.status == status
    if code is None:
        assert report.scope == "onnx"
    else:
        assert report.scope == "demo/reports/0"
        assert report.checks[0].findings[0].code == code


def test_declared_gaps_are_reported_unverified() -> None:
    gaps = (
        ("engine-round-trip", "TensorRT is not installed here"),
        ("dlpack-allocation", "no GPU"),
    )
    (report,) = verify_cases(ArchitectureCases("demo", unverified=gaps))
    assert report.scope == "demo/declared-gaps"
    assert [(check.name, check.status) for check in report.checks] == [
        ("engine-round-trip", "unverified"),
        ("dlpack-allocation", "unverified"),
    ]
    assert report.checks[0].findings[0].detail == "TensorRT is not installed here"
    assert report.checks[0].findings[0].code == "evidence-unavailable"


@pytest.mark.req("spec.verification.missing-evidence-unverified")
def test_publishing_nothing_is_unverified() -> None:
    (report,) = verify_cases(ArchitectureCases("demo"))
    assert (report.scope, report.status) == ("demo", "unverified")
    assert report.checks[0].findings[0].code == "evidence-missing"


def test_verify_cases_needs_architecture_cases() -> None:
    with pytest.raises(VerificationInputError, match="ArchitectureCases"):
        verify_cases(("suite",))  # type: ignore[arg-type]


_HOOK = """
from pixtreme.infer.verification import ArchitectureCases
from pixtreme.infer.verification.contracts import VerificationReport, CheckResult

def verification_cases():
    check = CheckResult("demo-check", "passed", ())
    return ArchitectureCases("{name}", reports=(lambda: VerificationReport("demo", (check,)),))
"""


@pytest.fixture
def make_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., ModuleType]]:
    """Write an importable package (unique name) from {relative file: source}; import it."""
    created: list[str] = []

    def make(files: dict[str, str], *, single_file: bool = False) -> ModuleType:
        name = f"demo_arch_{next(_NAMES)}"
        root = tmp_path / f"src{len(created)}"
        monkeypatch.syspath_prepend(str(root))
        for relative, text in files.items():
            target = root / (f"{name}.py" if single_file else f"{name}/{relative}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text).replace("{name}", name), encoding="utf-8")
        created.append(name)
        __import__(name)
        return sys.modules[name]

    yield make
    for name in created:
        for module in [key for key in sys.modules if key == name or key.startswith(f"{name}.")]:
            del sys.modules[module]


def test_verify_module_scans_the_sources_then_runs_the_hook(
    make_package: Callable[..., ModuleType],
) -> None:
    module = make_package(
        {
            "__init__.py": _HOOK,
            "_impl.py": "from pixtreme.infer import _dispatch\nimport pixtreme.infer.contracts\n",
        }
    )
    scan, report = verify_module(module, "demo")
    assert scan.scope == "public-contract-references"
    (check,) = scan.checks
    assert check.name == module.__name__
    assert [(f.code, f.path) for f in check.findings] == [
        ("core-private", f"{module.__name__}/_impl.py:1")
    ]
    assert (report.scope, report.status) == ("demo", "passed")


def test_a_single_file_architecture_module_is_scanned(
    make_package: Callable[..., ModuleType],
) -> None:
    module = make_package({"": _HOOK + "\nimport pixtreme.infer._validate\n"}, single_file=True)
    scan, _ = verify_module(module, "demo")
    assert [f.code for f in scan.checks[0].findings] == ["core-private"]
    assert scan.checks[0].findings[0].path.startswith(f"{module.__name__}.py:")


@pytest.mark.parametrize(
    ("hook", "status", "code"),
    [
        ("", "unverified", "evidence-missing"),
        ("verification_cases = 3\n", "unverified", "evidence-missing"),
        (
            "def verification_cases():\n    raise RuntimeError('broken hook')\n",
            "failed",
            "evidence-raised",
        ),
        (
            "from pixtreme.infer.errors import EvidenceUnavailable\n"
            "def verification_cases():\n"
            "    raise EvidenceUnavailable(why='w', what='no TensorRT', how='h')\n",
            "unverified",
            "evidence-unavailable",
        ),
        ("def verification_cases():\n    return ()\n", "failed", "evidence-type"),
    ],
    ids=["no-hook", "not-callable", "raises", "unavailable", "wrong-type"],
)
def test_hook_problems_become_results(
    make_package: Callable[..., ModuleType], hook: str, status: str, code: str
) -> None:
    module = make_package({"__init__.py": hook})
    scan, report = verify_module(module, "demo")
    assert scan.checks[0].status == "passed"
    (check,) = report.checks
    assert (check.name, check.status, check.findings[0].code) == (HOOK_NAME, status, code)


@pytest.mark.parametrize(
    "name", ["nonexistent", "cli", "verification"], ids=["unknown", "core-cli", "core-verification"]
)
def test_only_known_architectures_are_verified(name: str) -> None:
    with pytest.raises(AttributeError, match="known:"):
        verify_architecture(name)


def test_a_known_but_absent_architecture_names_its_distribution() -> None:
    with pytest.raises(ArchitectureNotInstalledError, match="pixtreme-infer-span"):
        verify_architecture("span")


def test_an_entry_point_architecture_is_resolved_and_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_package: Callable[..., ModuleType]
) -> None:
    module = make_package({"__init__.py": _HOOK})
    site = tmp_path / "site"
    info = site / "demo_registered-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-registered\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[pixtreme.infer.architectures]\ndemo_registered = {module.__name__}\n"
    )
    monkeypatch.syspath_prepend(str(site))
    scan, report = verify_architecture("demo_registered")
    assert scan.checks[0].name == module.__name__
    assert report.checks[0].name == "demo-check"


@pytest.mark.extras("pixtreme.infer.example")
def test_the_example_architecture_runs_without_crashing_the_run() -> None:
    reports = verify_architecture("example")
    assert reports[0].scope == "public-contract-references"
    assert reports[0].checks[0].name == "pixtreme.infer.example"
    assert all(isinstance(report, VerificationReport) for report in reports)

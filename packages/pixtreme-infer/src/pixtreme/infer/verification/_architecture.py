"""The architecture hook: run what an architecture publishes through ``verification_cases()``.

An architecture module defines ``verification_cases()`` returning ArchitectureCases.
verify_architecture resolves any architecture pixtreme.infer knows (statically or through the
``pixtreme.infer.architectures`` entry-point group), scans its sources for references to
private core names, and runs its cases. Every failure stays inside its own result: an
exception from an evidence callable fails that check (or leaves it unverified when it is
``EvidenceUnavailable``) and never ends the whole run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from pixtreme.infer import _dispatch
from pixtreme.infer.errors import EvidenceUnavailable, actionable_error
from pixtreme.infer.verification._graph_replay import CudaGraphContractSuite, _graph_checks
from pixtreme.infer.verification._results import (
    EVIDENCE_MISSING,
    EVIDENCE_RAISED,
    EVIDENCE_TYPE,
    EVIDENCE_UNAVAILABLE,
    CheckResult,
    CheckStatus,
    VerificationInputError,
    VerificationReport,
    _finding,
)
from pixtreme.infer.verification._scan import _python_files, _scan
from pixtreme.infer.verification._suites import (
    StatelessContractSuite,
    TemporalContractSuite,
    _Evidence,
    _module_checks,
)

HOOK_NAME = "verification_cases"
"""The module-level function an architecture defines; it returns ArchitectureCases."""

_Suite = StatelessContractSuite | TemporalContractSuite | CudaGraphContractSuite


@dataclass(frozen=True)
class ArchitectureCases:
    """What an architecture publishes for ``pixtreme-infer verify <architecture>``.

    ``suites`` run through the module checks (a CudaGraphContractSuite adds
    graph-replay-equivalence); each callable in ``reports`` returns a further
    VerificationReport (an ONNX check, for example); ``unverified`` names evidence the
    architecture knows it cannot supply here as (check name, reason) pairs, so the gap shows
    as "unverified" instead of disappearing.
    """

    architecture: str
    suites: tuple[_Suite, ...] = ()
    reports: tuple[Callable[[], VerificationReport], ...] = ()
    unverified: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.architecture, str) or not self.architecture:
            raise _cases_error("architecture", self.architecture, "a nonempty name")
        for field in ("suites", "reports", "unverified"):
            if not isinstance(getattr(self, field), tuple):
                raise _cases_error(field, getattr(self, field), "a tuple")
        for suite in self.suites:
            if not isinstance(
                suite, StatelessContractSuite | TemporalContractSuite | CudaGraphContractSuite
            ):
                raise _cases_error("suites", suite, "contract suites")
        for report in self.reports:
            if not callable(report):
                raise _cases_error("reports", report, "callables returning VerificationReport")
        for item in self.unverified:
            if not (
                isinstance(item, tuple)
                and len(item) == 2
                and all(isinstance(part, str) and part for part in item)
            ):
                raise _cases_error("unverified", item, "(check name, reason) string pairs")


def _cases_error(field: str, value: object, expected: str) -> VerificationInputError:
    return VerificationInputError(
        why=f"ArchitectureCases.{field} holds {expected}",
        what=f"received {field}={value!r:.200}",
        how="see the pixtreme-infer architecture hook documentation",
    )


def _single(
    scope: str, name: str, status: CheckStatus, finding: tuple[str, object, str]
) -> VerificationReport:
    """A report of one check with one finding given as (code, observed, detail)."""
    code, observed, detail = finding
    check = CheckResult(name, status, (_finding(code, scope, observed, None, detail),))
    return VerificationReport(scope, (check,))


def _raised(scope: str, name: str, error: Exception, detail: str) -> VerificationReport:
    if isinstance(error, EvidenceUnavailable):
        return _single(scope, name, "unverified", (EVIDENCE_UNAVAILABLE, error.what, str(error)))
    observed = f"{type(error).__name__}: {error}"
    return _single(scope, name, "failed", (EVIDENCE_RAISED, observed, detail))


def _run_suite(scope: str, suite: _Suite) -> VerificationReport:
    evidence = _Evidence(contain=True)
    try:
        if isinstance(suite, CudaGraphContractSuite):
            checks = _graph_checks(suite, evidence)
        else:
            checks = _module_checks(suite, evidence)
    except Exception as error:  # a malformed suite: its report fails as a whole
        return _raised(scope, "contract-suite", error, "the contract suite cannot be run")
    return VerificationReport(scope, checks)


def _run_report(scope: str, make: Callable[[], VerificationReport]) -> VerificationReport:
    try:
        report = make()
    except Exception as error:
        return _raised(scope, "report", error, "the report callable raised")
    if not isinstance(report, VerificationReport):
        return _single(
            scope,
            "report",
            "failed",
            (
                EVIDENCE_TYPE,
                type(report).__name__,
                "a report callable must return a VerificationReport",
            ),
        )
    return report


def verify_cases(cases: ArchitectureCases) -> tuple[VerificationReport, ...]:
    """Run every suite and report callable of ``cases`` and report its declared gaps.

    Each suite's report has scope ``<architecture>/<kind>/<index>``; a failure inside a suite
    fails only the affected check. With nothing published at all, one unverified report says so.
    """
    if not isinstance(cases, ArchitectureCases):
        raise VerificationInputError(
            why="verify_cases runs ArchitectureCases",
            what=f"received {type(cases).__name__}",
            how="return ArchitectureCases(...) from the verification_cases() hook",
        )
    name = cases.architecture
    reports: list[VerificationReport] = []
    for index, suite in enumerate(cases.suites):
        kind = (
            "cuda-graph-contract"
            if isinstance(suite, CudaGraphContractSuite)
            else "module-contract"
        )
        reports.append(_run_suite(f"{name}/{kind}/{index}", suite))
    reports.extend(
        _run_report(f"{name}/reports/{index}", make) for index, make in enumerate(cases.reports)
    )
    if cases.unverified:
        gaps = tuple(
            CheckResult(
                check, "unverified", (_finding(EVIDENCE_UNAVAILABLE, name, None, None, reason),)
            )
            for check, reason in cases.unverified
        )
        reports.append(VerificationReport(f"{name}/declared-gaps", gaps))
    if not reports:
        reports.append(
            _single(
                name,
                HOOK_NAME,
                "unverified",
                (
                    EVIDENCE_MISSING,
                    None,
                    "the architecture published no suites, reports or declared gaps",
                ),
            )
        )
    return tuple(reports)


def _source_root(directory: Path, levels: int) -> Path:
    """The folder ``levels`` above ``directory``: the one holding the top-level package."""
    for _ in range(levels):
        directory = directory.parent
    return directory


def _scan_module(module: ModuleType, architecture: str) -> VerificationReport:
    """The public-contract scan of the module's own source files."""
    name = module.__name__
    locations = [Path(item) for item in getattr(module, "__path__", ())]
    files: dict[str, Path] = {}
    if locations:
        for directory in locations:
            root = _source_root(directory, name.count(".") + 1)
            for file in _python_files(directory):
                files[file.relative_to(root).as_posix()] = file
    elif module.__file__ and module.__file__.endswith(".py"):
        file = Path(module.__file__)
        root = _source_root(file.parent, name.count("."))
        files[file.relative_to(root).as_posix()] = file
    try:
        return _scan(files, name)
    except Exception as error:
        return _raised("public-contract-references", name, error, f"scanning {architecture} failed")


def verify_module(module: ModuleType, architecture: str) -> tuple[VerificationReport, ...]:
    """Scan the module's sources for private core references, then run its hook's cases."""
    return (_scan_module(module, architecture), *_run_hook(module, architecture))


def _run_hook(module: ModuleType, architecture: str) -> tuple[VerificationReport, ...]:
    hook = getattr(module, HOOK_NAME, None)
    if not callable(hook):
        return (
            _single(
                architecture,
                HOOK_NAME,
                "unverified",
                (
                    EVIDENCE_MISSING,
                    module.__name__,
                    f"{module.__name__} defines no {HOOK_NAME}() function",
                ),
            ),
        )
    try:
        cases = hook()
    except Exception as error:
        return (_raised(architecture, HOOK_NAME, error, f"{module.__name__}.{HOOK_NAME}() raised"),)
    if not isinstance(cases, ArchitectureCases):
        return (
            _single(
                architecture,
                HOOK_NAME,
                "failed",
                (
                    EVIDENCE_TYPE,
                    type(cases).__name__,
                    f"{HOOK_NAME}() must return pixtreme.infer.verification.ArchitectureCases",
                ),
            ),
        )
    return verify_cases(cases)


def verify_architecture(name: str) -> tuple[VerificationReport, ...]:
    """Import the architecture ``name`` (static map or entry point) and verify it.

    Raises AttributeError for a name pixtreme.infer does not know as an architecture and
    ArchitectureNotInstalledError when its distribution is absent.
    """
    known = _dispatch.architectures()
    if name not in known or name in _dispatch.CORE_MODULES:
        raise AttributeError(
            actionable_error(
                why="verify_architecture runs architectures known to pixtreme.infer",
                what=f"{name!r} is not one; known: {', '.join(sorted(known))}",
                how="install the architecture's distribution, or register it in the "
                f"{_dispatch.ENTRY_POINT_GROUP!r} entry-point group",
            )
        )
    module = _dispatch.resolve("pixtreme.infer", name)
    return verify_module(module, name)


__all__ = ["HOOK_NAME", "ArchitectureCases", "verify_architecture", "verify_cases", "verify_module"]

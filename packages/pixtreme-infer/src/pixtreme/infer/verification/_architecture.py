"""Run what an architecture publishes through its ``verification_cases()`` hook."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from pixtreme.infer import _dispatch
from pixtreme.infer.verification._module_contract import verify_module_contract
from pixtreme.infer.verification._results import (
    EVIDENCE_MISSING,
    EVIDENCE_RAISED,
    EVIDENCE_TYPE,
    EVIDENCE_UNAVAILABLE,
    CheckResult,
    CheckStatus,
    VerificationFinding,
    VerificationReport,
)
from pixtreme.infer.verification._suites import ArchitectureCases

HOOK_NAME = "verification_cases"
"""The module-level function an architecture defines; it returns ArchitectureCases."""


def _single(scope: str, check: CheckResult) -> VerificationReport:
    return VerificationReport(scope=scope, checks=(check,))


def _failed(scope: str, code: str, observed: str, detail: str) -> VerificationReport:
    finding = VerificationFinding(code=code, path=scope, observed=observed, detail=detail)
    return _single(
        scope, CheckResult(name=HOOK_NAME, status=CheckStatus.FAILED, findings=(finding,))
    )


def _run_report(
    scope: str, index: int, make: Callable[[], VerificationReport]
) -> VerificationReport:
    label = f"{scope}/reports[{index}]"
    try:
        report = make()
    except Exception as error:
        return _failed(
            label, EVIDENCE_RAISED, f"{type(error).__name__}: {error}", "a report callable raised"
        )
    if not isinstance(report, VerificationReport):
        return _failed(
            label, EVIDENCE_TYPE, type(report).__name__, "a report callable must return a report"
        )
    return report


def verify_cases(cases: ArchitectureCases) -> tuple[VerificationReport, ...]:
    """Run every suite and report callable in ``cases``, plus its declared gaps."""
    reports = [verify_module_contract(suite) for suite in cases.suites]
    reports.extend(
        _run_report(cases.architecture, index, make) for index, make in enumerate(cases.reports)
    )
    if cases.unverified:
        reports.append(
            VerificationReport(
                scope=f"{cases.architecture}/declared-gaps",
                checks=tuple(
                    CheckResult.unverified(
                        name, code=EVIDENCE_UNAVAILABLE, path=cases.architecture, detail=reason
                    )
                    for name, reason in cases.unverified
                ),
            )
        )
    if not reports:
        reports.append(
            _single(
                cases.architecture,
                CheckResult.unverified(
                    HOOK_NAME,
                    code=EVIDENCE_MISSING,
                    path=cases.architecture,
                    detail="the architecture published no suites, reports or declared gaps",
                ),
            )
        )
    return tuple(reports)


def _import_lint(module: ModuleType, architecture: str) -> VerificationReport:
    from pixtreme.infer.verification._lint import lint_infer_imports

    paths = list(getattr(module, "__path__", ())) or [module.__file__ or ""]
    check = lint_infer_imports(paths, own_package=module.__name__)
    return VerificationReport(scope=f"{architecture}/imports", checks=(check,))


def verify_module(module: ModuleType, architecture: str) -> tuple[VerificationReport, ...]:
    """Lint the module's pixtreme.infer imports, then run what ``verification_cases()`` returns."""
    return (_import_lint(module, architecture), *_verify_hook(module, architecture))


def _verify_hook(module: ModuleType, architecture: str) -> tuple[VerificationReport, ...]:
    hook = getattr(module, HOOK_NAME, None)
    if hook is None or not callable(hook):
        return (
            _single(
                architecture,
                CheckResult.unverified(
                    HOOK_NAME,
                    code=EVIDENCE_MISSING,
                    path=module.__name__,
                    detail=f"{module.__name__} defines no {HOOK_NAME}() function; "
                    "see pixtreme-infer docs/architecture-hook.md",
                ),
            ),
        )
    try:
        cases = hook()
    except Exception as error:
        return (
            _failed(
                architecture,
                EVIDENCE_RAISED,
                f"{type(error).__name__}: {error}",
                f"{module.__name__}.{HOOK_NAME}() raised",
            ),
        )
    if not isinstance(cases, ArchitectureCases):
        return (
            _failed(
                architecture,
                EVIDENCE_TYPE,
                type(cases).__name__,
                f"{HOOK_NAME}() must return pixtreme.infer.verification.ArchitectureCases",
            ),
        )
    return verify_cases(cases)


def verify_architecture(name: str) -> tuple[VerificationReport, ...]:
    """Import ``pixtreme.infer.<name>`` through the static map and run its published cases.

    Raises ArchitectureNotInstalledError when the distribution is absent and AttributeError
    for a name that is not a known architecture.
    """
    if name not in _dispatch.ARCHITECTURES:
        raise _dispatch.unknown_name_error("pixtreme.infer", name)
    module = _dispatch.resolve("pixtreme.infer", name)
    return verify_module(module, name)

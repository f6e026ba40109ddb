"""An import lint for architecture code: only public, known pixtreme.infer names.

Architectures must not reach into the core's private modules or import names the core does
not export; such imports break silently when the core's internals move.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterable
from pathlib import Path

from pixtreme.infer import _dispatch
from pixtreme.infer.verification._results import CheckResult, VerificationFinding

_ROOT = "pixtreme.infer"


def _public_names(module: str) -> frozenset[str] | None:
    """``__all__`` of a core public module, or None when ``module`` is not one."""
    if module == _ROOT:
        names = set(importlib.import_module(_ROOT).__all__)
        return frozenset(names | set(_dispatch.CORE_MODULES) | set(_dispatch.ARCHITECTURES))
    tail = module.removeprefix(f"{_ROOT}.")
    if "." in tail or tail not in _dispatch.CORE_MODULES:
        return None
    return frozenset(getattr(importlib.import_module(module), "__all__", ()))


def _is_private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


def _inside(module: str, package: str | None) -> bool:
    return package is not None and (module == package or module.startswith(f"{package}."))


def _check_module(module: str, where: str, own: str | None) -> list[VerificationFinding]:
    if not (module == _ROOT or module.startswith(f"{_ROOT}.")) or _inside(module, own):
        return []
    if _is_private(module):
        return [VerificationFinding(code="private-module", path=where, observed=module)]
    tail = module.removeprefix(f"{_ROOT}.").split(".")[0]
    known = {*_dispatch.CORE_MODULES, *_dispatch.ARCHITECTURES}
    if module != _ROOT and tail not in known:
        return [
            VerificationFinding(
                code="unknown-module", path=where, observed=module, expected=sorted(known)
            )
        ]
    return []


def lint_source(
    source: str, *, filename: str = "<source>", own_package: str | None = None
) -> tuple[VerificationFinding, ...]:
    """Findings for imports of private or unknown pixtreme.infer names in ``source``.

    Imports inside ``own_package`` (the architecture's own modules) are not checked.
    """
    tree = ast.parse(source, filename=filename)
    findings: list[VerificationFinding] = []
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                findings.extend(_check_module(alias.name, where, own_package))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module_findings = _check_module(node.module, where, own_package)
            findings.extend(module_findings)
            if module_findings or _inside(node.module, own_package):
                continue
            public = _public_names(node.module)
            if public is None:
                continue
            for alias in node.names:
                name = alias.name
                if name == "*" or name in public:
                    continue
                code = "private-name" if name.startswith("_") else "unknown-name"
                findings.append(
                    VerificationFinding(
                        code=code,
                        path=where,
                        observed=f"{node.module}.{name}",
                        expected=f"a name in {node.module}.__all__",
                    )
                )
    return tuple(findings)


def lint_infer_imports(
    paths: Iterable[str | Path], *, own_package: str | None = None
) -> CheckResult:
    """Lint every ``*.py`` file under ``paths``; one check named ``infer-imports``."""
    findings: list[VerificationFinding] = []
    count = 0
    for root in paths:
        base = Path(root)
        files = sorted(base.rglob("*.py")) if base.is_dir() else [base]
        for file in files:
            count += 1
            findings.extend(
                lint_source(
                    file.read_text(encoding="utf-8"), filename=str(file), own_package=own_package
                )
            )
    return CheckResult.from_findings(
        "infer-imports", tuple(findings), detail=f"{count} file(s) linted"
    )

"""Performance measurements do not determine support status.

Two ways to hold that: the code that decides a check's status never imports the measurement
modules (so it cannot read a latency), and a measurement handed in as evidence is rejected as
the wrong evidence type, so it can never make a check pass.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pixtreme.infer.contracts import StatelessModuleContract, TemporalModuleContract
from pixtreme.infer.verification import (
    CheckStatus,
    CommonContractCases,
    CudaGraphContractSuite,
    FactoryContractCases,
    StatelessContractSuite,
    TemporalContractSuite,
    measure_requests,
    summarize_latency,
    verify_cuda_graph_contract,
    verify_module_contract,
)

pytestmark = pytest.mark.req("spec.verification.performance-not-status")

_SOURCE = Path(__file__).resolve().parents[1] / "src"
# Code that decides statuses or writes verification records: whole modules, or one function
# ("module:function") where the module also does something else (cli's `list` reads NVML).
_DECIDING = (
    "pixtreme.infer.cli:_verify",
    "pixtreme.infer.verification._architecture",
    "pixtreme.infer.verification._cuda_graph",
    "pixtreme.infer.verification._distributions",
    "pixtreme.infer.verification._facts",
    "pixtreme.infer.verification._lint",
    "pixtreme.infer.verification._module_contract",
    "pixtreme.infer.verification._results",
    "pixtreme.infer.verification._suites",
)
_MEASURING = (
    "pixtreme.infer.verification._measure",
    "pixtreme.infer.verification._telemetry",
    "pixtreme.infer._cuda_graph_timing",
)


def _module_file(name: str) -> Path | None:
    base = _SOURCE.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(name: str) -> set[str]:
    """pixtreme.infer modules ``name`` imports anywhere in its code (including function bodies).

    ``name`` may be ``module:function``: then only the module-level imports and that function's
    body count.
    """
    module, _, function = name.partition(":")
    file = _module_file(module)
    assert file is not None, name
    tree = ast.parse(file.read_text(encoding="utf-8"))
    nodes: list[ast.AST] = [tree]
    if function:
        bodies = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
        ]
        assert len(bodies) == 1, f"{module} has no function {function}"
        top_level = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
        nodes = [*top_level, *bodies]
    found: set[str] = set()
    for node in (inner for root in nodes for inner in ast.walk(root)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # "from pixtreme.infer import _validate" names a submodule
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {item for item in found if item.startswith("pixtreme.infer") and _module_file(item)}


def _closure(name: str) -> set[str]:
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        pending.extend(_imports(current) - seen)
    return seen


@pytest.mark.parametrize("module", _DECIDING)
def test_status_code_never_imports_measurements(module: str) -> None:
    reached = _closure(module)
    assert not reached & set(_MEASURING), (
        f"{module} reaches {sorted(reached & set(_MEASURING))}: statuses must not read timings"
    )


def test_the_import_walk_sees_measurements_where_they_are() -> None:
    # The walk is not blind: the package that exports measure_requests does reach it, and so
    # does the `list` command, which reads NVML to say whether the verify extra is usable.
    assert "pixtreme.infer.verification._telemetry" in _closure("pixtreme.infer.cli")
    assert "pixtreme.infer.verification._measure" in _closure("pixtreme.infer.verification")
    assert "pixtreme.infer.verification._telemetry" in _closure(
        "pixtreme.infer.verification._measure"
    )


def _measurement() -> Any:
    return measure_requests(lambda: None, samples=3, warmup=0)


def _latency() -> Any:
    return summarize_latency((0.001, 0.002))


_COMMON_FIELDS = (
    "frame_boundary",
    "dlpack_allocation",
    "engine_round_trip",
    "engine_incompatibility",
    "checkpoint_selector_rejection",
)
_FACTORY_FIELDS = ("query_gpu_allocation", "opened_contract", "closed_inference")
_TEMPORAL_FIELDS = ("reset_equivalence", "reset_continuation", "instance_isolation")


@pytest.mark.parametrize("supplier", [_measurement, _latency], ids=["measurement", "latency"])
@pytest.mark.parametrize("field", [*_COMMON_FIELDS, *_FACTORY_FIELDS, *_TEMPORAL_FIELDS])
def test_a_measurement_as_evidence_fails_the_check(
    field: str,
    supplier: Callable[[], Any],
    temporal_contract: TemporalModuleContract,
) -> None:
    if field in _COMMON_FIELDS:
        suite = TemporalContractSuite(
            name="t", contract=temporal_contract, common=CommonContractCases(**{field: supplier})
        )
    elif field in _FACTORY_FIELDS:
        suite = TemporalContractSuite(
            name="t", contract=temporal_contract, factory=FactoryContractCases(**{field: supplier})
        )
    else:
        evidence: dict[str, Any] = {field: supplier}
        suite = TemporalContractSuite(name="t", contract=temporal_contract, **evidence)
    report = verify_module_contract(suite)
    check = report.check(field.replace("_", "-"))
    assert check.status is CheckStatus.FAILED
    assert check.findings[0].code == "evidence-type"
    assert report.status is CheckStatus.FAILED


def test_a_measurement_cannot_stand_in_for_graph_replay_evidence(
    stateless_contract: StatelessModuleContract,
) -> None:
    module = StatelessContractSuite(name="s", contract=stateless_contract)
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(module=module, replay_equivalence=_measurement)
    )
    check = report.check("graph-replay-equivalence")
    assert check.status is CheckStatus.FAILED
    assert check.findings[0].code == "evidence-type"

"""Every specification item of pixtreme-infer's core has at least one test traced to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# Statements of ../shared/seeds/pixtreme-infer-spec.txt owned by the core (issue 6); the CUDA
# Graph component statements are traced by the cuda_graph tests (issue 7).
SPEC_ITEMS = {
    "spec.packaging.wheel-owns-only-subtree": "The wheel owns only the pixtreme/infer/ subtree.",
    "spec.packaging.namespace-root-owned-by-pixtreme": "pixtreme/__init__.py remains pixtreme's.",
    "spec.capabilities.base-dependency": "The base dependency is pixtreme>=1.3.0.",
    "spec.capabilities.extras": "ort: ONNX Runtime verification; verify: device telemetry.",
    "spec.capabilities.no-tensorrt-or-torch": "The core does not depend on TensorRT or torch.",
    "spec.core.contracts-without-architecture": "Core-only installation exposes the contracts.",
    "spec.core.absent-architecture-actionable": "Absent architecture: actionable error.",
    "spec.core.no-eager-architecture-import": "No eager import of architecture implementations.",
    "spec.cuda-graph.factory-provider-protocol": "CudaGraphFactoryProvider in contracts.",
    "spec.verification.missing-evidence-unverified": "Missing evidence stays unverified.",
    "spec.verification.performance-not-status": "Performance measurements do not determine "
    "support status.",
    "spec.development.suite-without-gpu": "The normal test suite does not require a GPU.",
    "spec.development.optional-dependencies-skip": "Tests that require unavailable optional "
    "dependencies skip with a reason.",
    "spec.license.mit": "The core distribution is licensed under the MIT License.",
}
ISSUE_ITEMS = (
    "issue6.error-shape",
    "issue6.require-optional",
    "issue6.dispatch.static-map",
    "issue6.dispatch.lazy",
    "issue6.dispatch.unknown",
    "issue6.dispatch.absent",
    "issue6.dispatch.broken",
    "issue6.frame-boundary",
    "issue6.contracts.validate",
    "issue6.validate-call-params",
    "issue6.protocols",
    "issue6.recipes",
    "issue6.onnx",
    "issue6.onnx.reference",
    "issue6.results",
    "issue6.facts",
    "issue6.module-contract",
    "issue6.module-contract.order",
    "issue6.compare-rgb",
    "issue6.measure",
    "issue6.telemetry",
    "issue6.records",
    "issue6.references",
    "issue6.distributions",
    "issue6.cli.list",
    "issue6.cli.verify",
    "issue6.hook",
    "issue6.public-names",
    "issue6.value-objects",
    "issue6.output-records.validate",
    "issue6.record-validation",
    "issue6.import-lint",
    "issue6.readme-examples",
    "issue6.dispatch.namespace",
    "issue6.cli.console-script",
)


def _traced_ids() -> set[str]:
    found: set[str] = set()
    for path in Path(__file__).parent.glob("test_pxi_*.py"):
        found.update(re.findall(r"""req\(\s*["']([^"']+)["']\s*\)""", path.read_text()))
    return found


@pytest.mark.parametrize("item", [*SPEC_ITEMS, *ISSUE_ITEMS])
def test_item_is_traced(item: str) -> None:
    assert item in _traced_ids(), f"no test carries @pytest.mark.req({item!r})"


def test_every_traced_id_is_a_listed_item() -> None:
    unlisted = sorted(_traced_ids() - {*SPEC_ITEMS, *ISSUE_ITEMS})
    assert not unlisted, f"req ids not listed in SPEC_ITEMS or ISSUE_ITEMS: {unlisted}"

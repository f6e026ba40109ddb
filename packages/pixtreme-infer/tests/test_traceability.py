"""Every statement of the specification owned by the core has at least one test traced to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# Statements of ../shared/seeds/pixtreme-infer-spec.txt owned by the core.
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
_TRACE = re.compile(r"""req\(\s*["']([^"']+)["']\s*\)""")


def _traced_ids() -> set[str]:
    found: set[str] = set()
    for path in Path(__file__).parent.rglob("test_*.py"):
        found.update(_TRACE.findall(path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("item", sorted(SPEC_ITEMS))
def test_item_is_traced(item: str) -> None:
    assert item in _traced_ids(), f"no test carries @pytest.mark.req({item!r})"

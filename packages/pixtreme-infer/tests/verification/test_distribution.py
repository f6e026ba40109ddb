"""verify_distribution and DistributionPolicy, and the real built wheel and sdist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pixtreme.infer.verification.contracts import VerificationInputError
from pixtreme.infer.verification.distribution import (
    DistributionInventory,
    DistributionPolicy,
    inspect_sdist,
    inspect_wheel,
    verify_distribution,
)

pytestmark = pytest.mark.req("spec.verification.distributions")

PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _inventory(**overrides: Any) -> DistributionInventory:
    fields: dict[str, Any] = {
        "kind": "wheel",
        "source": Path("x.whl"),
        "files": ("pixtreme/infer/demo/__init__.py", "pixtreme/infer/demo/_native.so"),
        "name": "pixtreme-arch-demo",
        "version": "1.0",
        "requires_dist": ("pixtreme-infer[ort]>=0.15.1",),
        "extras": (),
        "console_scripts": (),
    }
    fields.update(overrides)
    return DistributionInventory(**fields)


def test_a_distribution_that_meets_its_policy_passes() -> None:
    policy = DistributionPolicy(
        "Pixtreme_Arch.Demo",
        forbidden_suffixes=(".pyd",),
        forbidden_path_patterns=("pixtreme/__init__.py", "pixtreme/infer/__init__.py"),
        required_core_extras=frozenset({"ort"}),
    )
    report = verify_distribution(_inventory(), policy)
    assert report.scope == "distribution"
    assert [(check.name, check.status) for check in report.checks] == [
        ("pixtreme-arch-demo", "passed")
    ]


@pytest.mark.parametrize(
    ("inventory", "policy", "expected"),
    [
        pytest.param(
            {"name": "other"},
            {},
            [("distribution-name", "Name", "other", "pixtreme-arch-demo")],
            id="name",
        ),
        pytest.param(
            {},
            {"forbidden_suffixes": (".so",)},
            [("forbidden-suffix", "pixtreme/infer/demo/_native.so", ".so", None)],
            id="suffix",
        ),
        pytest.param(
            {"files": ("pixtreme/__init__.py", "pixtreme/infer/demo/x.py")},
            {"forbidden_path_patterns": ("pixtreme/__init__.py",)},
            [("forbidden-path", "pixtreme/__init__.py", "pixtreme/__init__.py", None)],
            id="path",
        ),
        pytest.param(
            {"requires_dist": ("pixtreme-infer>=0.15.1", 'pixtreme-infer[verify]; extra == "x"')},
            {"required_core_extras": frozenset({"verify"})},
            [("core-extra-missing", "Requires-Dist", [], ["verify"])],
            id="core-extra-only-conditional",
        ),
    ],
)
def test_policy_violations_are_findings(
    inventory: dict[str, Any], policy: dict[str, Any], expected: list[tuple[Any, ...]]
) -> None:
    report = verify_distribution(
        _inventory(**inventory), DistributionPolicy("pixtreme-arch-demo", **policy)
    )
    (check,) = report.checks
    assert check.status == "failed"
    assert [(f.code, f.path, f.observed, f.expected) for f in check.findings] == expected


@pytest.mark.parametrize(
    ("policy", "pattern"),
    [
        (DistributionPolicy(""), "expected_name"),
        (DistributionPolicy("x", forbidden_suffixes=("",)), "forbidden suffix"),
        (DistributionPolicy("x", forbidden_suffixes=("a/b",)), "forbidden suffix"),
        (DistributionPolicy("x", forbidden_path_patterns=("/abs",)), "path pattern"),
        (DistributionPolicy("x", forbidden_path_patterns=("a/../b",)), "path pattern"),
        (DistributionPolicy("x", forbidden_path_patterns=("a\x00b",)), "path pattern"),
    ],
    ids=["no-name", "empty-suffix", "suffix-path", "absolute", "parent", "nul"],
)
def test_malformed_policies_are_refused(policy: DistributionPolicy, pattern: str) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        verify_distribution(_inventory(), policy)


def test_verify_distribution_needs_an_inventory_and_a_policy() -> None:
    with pytest.raises(VerificationInputError, match="distribution-policy"):
        verify_distribution("wheel", DistributionPolicy("x"))  # type: ignore[arg-type]


@pytest.mark.req("spec.packaging.wheel-owns-only-subtree")
@pytest.mark.req("spec.capabilities.no-tensorrt-or-torch")
@pytest.mark.extras("build", "hatchling", "hatch_vcs")
def test_the_real_wheel_and_sdist_inspect_cleanly(tmp_path: Path) -> None:
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
        timeout=300,
    )
    (wheel,) = tmp_path.glob("*.whl")
    (sdist,) = tmp_path.glob("*.tar.gz")
    inventory = inspect_wheel(wheel)
    assert "pixtreme/infer/verification/contracts.py" in inventory.files
    assert set(inventory.extras) >= {"ort", "verify"}
    core = DistributionPolicy(
        "pixtreme-infer",
        forbidden_path_patterns=("pixtreme/__init__.py", "pixtreme/infer/example/*", "*.so"),
    )
    assert verify_distribution(inventory, core).checks[0].status == "passed"
    requirements = " ".join(inventory.requires_dist).lower()
    assert "tensorrt" not in requirements
    assert "torch" not in requirements
    assert inspect_sdist(sdist).name == "pixtreme-infer"

"""The architecture distributions published against 0.15.1 run on our core, unchanged.

`pixtreme-infer-span` 0.12.1 and `pixtreme-infer-cda-vsr` 0.10.4 are downloaded from the
package index without their dependencies (cached in .pytest_cache) and unpacked into a folder
that a subprocess of the workspace's Python puts on PYTHONPATH, beside our core:
`pixtreme/infer/__init__.py` extends its `__path__` with pkgutil.extend_path, so
`pixtreme.infer.span` is found there. Their imports need no GPU and no TensorRT.

In that subprocess each architecture must import; `FACTORY.family_contract` must be an
instance of our StatelessFamilyContract (span) or TemporalFamilyContract (cda_vsr) and equal
the module's `FAMILY_CONTRACT`; `pixtreme.infer.<arch>` must resolve through the core's static
dispatch (the wheels register no entry points); and our
`verification.distribution.scan_public_contract_references` over all their .py files must
find no unknown or private reference to the core.

On "passed": 0.15.1's own scanner does not report "passed" for these wheels but "unverified":
subscripted generics (`StatelessOpenContract[SpanArtifactIdentity]`), `importlib.import_module`
and reassigned TensorRT aliases are references it declines to follow (codes `unverified-*`).
So the check is what "no unknown or private references" means in 0.15.1's semantics: status
"passed" or "unverified", never "failed"; no finding outside `unverified-*`; and no finding
that 0.15.1's scanner itself does not report on the same files (ours may be more precise,
never less).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ARCHITECTURES = {
    # attribute: (distribution, published version, the family contract class it declares)
    "span": ("pixtreme-infer-span", "0.12.1", "StatelessFamilyContract"),
    "cda_vsr": ("pixtreme-infer-cda-vsr", "0.10.4", "TemporalFamilyContract"),
}
PUBLISHED_CORE = ("pixtreme-infer", "0.15.1")

_PROBE = textwrap.dedent(
    """
    import importlib, json, sys, traceback
    from pathlib import Path

    site = Path(sys.argv[1]).resolve()
    architectures = json.loads(sys.argv[2])
    scan_only = sys.argv[3] == "scan-only"
    out = {}
    import pixtreme.infer as core
    from pixtreme.infer.verification.distribution import scan_public_contract_references
    out["core_file"] = core.__file__
    for name, family in architectures.items():
        result = out[name] = {}
        full = f"pixtreme.infer.{name}"
        try:
            if not scan_only:
                result["lazy"] = full not in sys.modules
                module = getattr(core, name)  # the core's dispatch, not an import statement
                result["file"] = module.__file__
                result["same_module"] = module is importlib.import_module(full)
                contract = module.FACTORY.family_contract
                expected_type = getattr(importlib.import_module("pixtreme.infer"), family)
                result["contract_type"] = f"{type(contract).__module__}.{type(contract).__name__}"
                result["contract_class_module"] = expected_type.__module__
                result["isinstance"] = isinstance(contract, expected_type)
                result["equals_declared"] = contract == module.FAMILY_CONTRACT
            paths = sorted(str(p) for p in (site / "pixtreme" / "infer" / name).rglob("*.py"))
            report = scan_public_contract_references(paths, source_root=site, package_root=full)
            check = report.checks[0]
            result["status"] = str(check.status)
            result["findings"] = [
                [f.code, f.path, str(f.observed), f.detail] for f in check.findings
            ]
        except Exception:
            result["error"] = traceback.format_exc()
    print(json.dumps(out))
    """
)


def _unpack(wheel: Path, target: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)


def _probe(site: Path, pythonpath: list[Path], *, scan_only: bool) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    families = {name: family for name, (_, _, family) in ARCHITECTURES.items()}
    result = subprocess.run(
        [
            sys.executable, "-c", _PROBE, str(site), json.dumps(families),
            "scan-only" if scan_only else "all",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, f"the probe failed:\n{result.stdout}\n{result.stderr[-6000:]}"
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def site(
    published_wheel: Callable[[str, str], Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The two published architecture wheels, unpacked (with their .dist-info) into one folder."""
    folder = tmp_path_factory.mktemp("published-architectures")
    for distribution, version, _ in ARCHITECTURES.values():
        _unpack(published_wheel(distribution, version), folder)
    return folder


@pytest.fixture(scope="module")
def ours(site: Path) -> dict[str, Any]:
    """What the probe observes with the architectures beside our core."""
    return _probe(site, [site], scan_only=False)


@pytest.fixture(scope="module")
def published_scan(
    site: Path,
    published_wheel: Callable[[str, str], Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    """The same scan made by 0.15.1's own scanner (its wheel first on PYTHONPATH)."""
    core = tmp_path_factory.mktemp("published-core")
    _unpack(published_wheel(*PUBLISHED_CORE), core)
    observed = _probe(site, [core, site], scan_only=True)
    assert Path(observed["core_file"]).is_relative_to(core), observed["core_file"]
    return observed


def _observed(ours: dict[str, Any], name: str) -> dict[str, Any]:
    result = ours[name]
    assert "error" not in result, f"pixtreme.infer.{name} against our core:\n{result['error']}"
    return result


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_published_architecture_imports_beside_our_core(
    ours: dict[str, Any], site: Path, name: str
) -> None:
    core_file = Path(ours["core_file"])
    assert not core_file.is_relative_to(site), f"core from the unpacked folder: {core_file}"
    result = _observed(ours, name)
    assert Path(result["file"]) == site / "pixtreme" / "infer" / name / "__init__.py"


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_factory_family_contract_is_ours_and_the_declared_one(
    ours: dict[str, Any], name: str
) -> None:
    result = _observed(ours, name)
    family = ARCHITECTURES[name][2]
    assert result["isinstance"], f"{result['contract_type']} is not our {family}"
    assert str(result["contract_class_module"]).startswith("pixtreme.infer")
    assert result["equals_declared"], "FACTORY.family_contract != FAMILY_CONTRACT"


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_static_dispatch_resolves_the_published_module(
    ours: dict[str, Any], site: Path, name: str
) -> None:
    distribution = ARCHITECTURES[name][0].replace("-", "_")
    entry_points = sorted(site.glob(f"{distribution}-*.dist-info/entry_points.txt"))
    assert not entry_points, "the published wheel registers entry points; dispatch is not static"
    result = _observed(ours, name)
    assert result["lazy"], f"pixtreme.infer.{name} was imported before it was accessed"
    assert result["same_module"], "attribute access and import gave different modules"


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_scanner_finds_no_unknown_or_private_references(
    ours: dict[str, Any],
    published_scan: dict[str, Any],
    name: str,
) -> None:
    result = _observed(ours, name)
    findings = [tuple(f) for f in result["findings"]]
    definite = [f for f in findings if not str(f[0]).startswith("unverified-")]
    assert result["status"] in {"passed", "unverified"}, (result["status"], definite)
    assert not definite, "unknown or private references:\n" + "\n".join(map(str, definite))
    published = published_scan[name]
    assert "error" not in published, published.get("error")
    known = {tuple(f[:3]) for f in published["findings"]}
    new = [f for f in findings if tuple(f[:3]) not in known]
    assert not new, "findings 0.15.1's scanner does not report:\n" + "\n".join(map(str, new))

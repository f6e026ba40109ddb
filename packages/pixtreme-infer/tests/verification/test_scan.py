"""scan_public_contract_references: architecture sources may use only public core names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pixtreme.infer.verification.contracts import VerificationInputError
from pixtreme.infer.verification.distribution import scan_public_contract_references

pytestmark = pytest.mark.req("spec.verification.public-contract-scan")


def _scan(tmp_path: Path, sources: dict[str, str]) -> Any:
    package = tmp_path / "pixtreme" / "infer" / "demo"
    package.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in sources.items():
        file = package / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        paths.append(file)
    return scan_public_contract_references(
        paths, source_root=tmp_path, package_root="pixtreme.infer.demo"
    )


@pytest.mark.parametrize(
    "source",
    [
        "import pixtreme.infer\n",
        "import pixtreme.infer.contracts as c\nc.Exact(1)\n",
        "from pixtreme.infer import Exact, ARCHITECTURES, contracts\n",
        "from pixtreme.infer.verification.contracts import verify_module_contract\n",
        "from pixtreme.infer.verification import ArchitectureCases\n",
        "from pixtreme.infer.demo._private import x\nfrom . import _sibling\n",
        "import numpy\nfrom pixtreme.core import Frame\nimport importlib\n",
        "from pixtreme.infer import StatelessOpenContract\nX = StatelessOpenContract[str]\n",
        "from pixtreme.infer import ARCHITECTURES\nnames = ARCHITECTURES.items()\n",
        "import importlib\nimportlib.import_module('tensorrt')\n",
        "import pixtreme.infer\ngetattr(pixtreme.infer, 'Exact')\n",
        "import cupy\ncupy = None\ncupy.zeros\n",
    ],
    ids=[
        "root",
        "module-alias",
        "root-names",
        "verification-contracts",
        "verification-hook",
        "own-package",
        "not-core",
        "generic-subscript",
        "public-attribute",
        "literal-non-core-import",
        "literal-public-getattr",
        "non-core-rebinding",
    ],
)
def test_public_references_pass(tmp_path: Path, source: str) -> None:
    (check,) = _scan(tmp_path, {"m.py": source}).checks
    assert (check.name, check.status, check.findings) == ("pixtreme.infer.demo", "passed", ())


@pytest.mark.parametrize(
    ("source", "code", "observed"),
    [
        ("import pixtreme.infer._dispatch\n", "core-private", "pixtreme.infer._dispatch"),
        ("from pixtreme.infer import _dispatch\n", "core-private", "pixtreme.infer._dispatch"),
        (
            "from pixtreme.infer.verification._suites import _Evidence\n",
            "core-private",
            "pixtreme.infer.verification._suites._Evidence",
        ),
        (
            "from pixtreme.infer.contracts import validate\n",
            "core-private",
            "pixtreme.infer.contracts.validate",
        ),
        ("from pixtreme.infer import contract\n", "unverified-unknown", "pixtreme.infer.contract"),
        ("import pixtreme.infer.nosuch\n", "unverified-unknown", "pixtreme.infer.nosuch"),
        (
            "from pixtreme.infer.contracts import *\n",
            "unverified-star-import",
            "pixtreme.infer.contracts.*",
        ),
        ("from .... import x\n", "unverified-relative", "...."),
        (
            "import importlib\nimportlib.import_module('pixtreme.infer._dispatch')\n",
            "core-private",
            "pixtreme.infer._dispatch",
        ),
        (
            "import importlib\nname = 'x'\nimportlib.import_module(name)\n",
            "unverified-dynamic-import",
            "importlib.import_module(name)",
        ),
        (
            "import pixtreme.infer\ngetattr(pixtreme.infer, '_dispatch')\n",
            "core-private",
            "pixtreme.infer._dispatch",
        ),
        (
            "import pixtreme.infer as pi\nkey = 'Exact'\ngetattr(pi, key)\n",
            "unverified-dynamic-import",
            "getattr(pi, key)",
        ),
        (
            "import pixtreme.infer as pi\npi = object()\npi.Exact\n",
            "unverified-alias-reassigned",
            "pixtreme.infer.Exact",
        ),
        ("x = __import__\n", "unverified-dynamic-import", "__import__"),
    ],
    ids=[
        "private-module",
        "private-name-from-root",
        "private-submodule",
        "unexported-name",
        "unknown-root-name",
        "unknown-module",
        "star-import",
        "relative-above-root",
        "literal-private-import",
        "computed-import",
        "literal-private-getattr",
        "computed-getattr",
        "alias-reassigned",
        "importer-reference",
    ],
)
def test_private_and_unfollowable_references_are_reported(
    tmp_path: Path, source: str, code: str, observed: str
) -> None:
    (check,) = _scan(tmp_path, {"m.py": source}).checks
    assert check.status == ("failed" if code == "core-private" else "unverified")
    assert [(f.code, f.observed) for f in check.findings] == [(code, observed)]
    assert check.findings[0].path.startswith("pixtreme/infer/demo/m.py:")


def test_findings_are_ordered_by_file_and_line(tmp_path: Path) -> None:
    report = _scan(
        tmp_path,
        {
            "b.py": "\n\nfrom pixtreme.infer import _dispatch\n",
            "a.py": "from pixtreme.infer import nothing\nimport pixtreme.infer._validate\n",
        },
    )
    paths = [f.path for f in report.checks[0].findings]
    assert paths == [
        "pixtreme/infer/demo/a.py:1",
        "pixtreme/infer/demo/a.py:2",
        "pixtreme/infer/demo/b.py:3",
    ]
    assert report.checks[0].status == "failed"


def test_unparsable_files_and_empty_paths_are_unverified(tmp_path: Path) -> None:
    (check,) = _scan(tmp_path, {"broken.py": "def (:\n"}).checks
    assert [(f.code, f.path) for f in check.findings] == [
        ("unverified-parse", "pixtreme/infer/demo/broken.py:1")
    ]
    (tmp_path / "pixtreme" / "infer" / "demo").mkdir(parents=True, exist_ok=True)
    (empty,) = scan_public_contract_references(
        [], source_root=tmp_path, package_root="pixtreme.infer.demo"
    ).checks
    assert (empty.status, [f.code for f in empty.findings]) == (
        "unverified",
        ["unverified-empty-paths"],
    )


@pytest.mark.parametrize(
    ("paths", "package_root", "pattern"),
    [
        (lambda root: [], "not.a-package", "scanner-package"),
        (lambda root: [], "pixtreme.infer.absent", "scanner-package"),
        (lambda root: [root.parent / "outside.py"], "pixtreme.infer.demo", "scanner-path"),
        (
            lambda root: [root / "pixtreme/infer/demo/data.txt"],
            "pixtreme.infer.demo",
            "scanner-path",
        ),
    ],
    ids=["bad-package-name", "missing-package", "outside-root", "not-python"],
)
def test_scan_arguments_are_validated(
    tmp_path: Path, paths: Callable[[Path], list[Path]], package_root: str, pattern: str
) -> None:
    root = tmp_path / "src"
    (root / "pixtreme" / "infer" / "demo").mkdir(parents=True)
    (root / "pixtreme" / "infer" / "demo" / "data.txt").write_text("x")
    (tmp_path / "outside.py").write_text("x = 1\n")
    with pytest.raises(VerificationInputError, match=pattern):
        scan_public_contract_references(paths(root), source_root=root, package_root=package_root)

"""The import lint: private or unknown pixtreme.infer names in architecture code."""

from __future__ import annotations

from pathlib import Path

import pytest
from pixtreme.infer.verification import CheckStatus, lint_infer_imports, lint_source

pytestmark = pytest.mark.req("issue6.import-lint")


@pytest.mark.parametrize(
    "source",
    [
        "import pixtreme.infer\n",
        "import pixtreme.infer.contracts as c\n",
        "from pixtreme.infer import contracts, example, ARCHITECTURES\n",
        "from pixtreme.infer.contracts import Exact, FrameContract\n",
        "from pixtreme.infer.verification import verify_module_contract\n",
        "from pixtreme.infer.demo._private import x\n",  # own package
        "from . import _sibling\n",
        "import numpy\nfrom pixtreme.core import Frame\n",
    ],
    ids=["root", "module", "root-names", "contracts", "verification", "own", "relative", "other"],
)
def test_public_imports_pass(source: str) -> None:
    assert lint_source(source, own_package="pixtreme.infer.demo") == ()


@pytest.mark.parametrize(
    ("source", "code", "observed"),
    [
        ("import pixtreme.infer._dispatch\n", "private-module", "pixtreme.infer._dispatch"),
        (
            "from pixtreme.infer.verification._facts import SequenceStep\n",
            "private-module",
            "pixtreme.infer.verification._facts",
        ),
        (
            "from pixtreme.infer.contracts import _inner\n",
            "private-name",
            "pixtreme.infer.contracts._inner",
        ),
        (
            "from pixtreme.infer.contracts import Exactly\n",
            "unknown-name",
            "pixtreme.infer.contracts.Exactly",
        ),
        ("from pixtreme.infer import contract\n", "unknown-name", "pixtreme.infer.contract"),
        ("import pixtreme.infer.nosuch\n", "unknown-module", "pixtreme.infer.nosuch"),
    ],
    ids=[
        "private-module",
        "private-submodule",
        "private-name",
        "unknown-name",
        "root-unknown",
        "unknown-module",
    ],
)
def test_private_and_unknown_imports_are_flagged(source: str, code: str, observed: str) -> None:
    (finding,) = lint_source(source, filename="m.py", own_package="pixtreme.infer.demo")
    assert (finding.code, finding.observed, finding.path) == (code, observed, "m.py:1")


def test_lint_over_files(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("from pixtreme.infer.errors import ContractError\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.py").write_text("\n\nimport pixtreme.infer._validate\n")
    check = lint_infer_imports([tmp_path])
    assert check.status is CheckStatus.FAILED
    assert check.detail == "2 file(s) linted"
    assert check.findings[0].path.endswith("bad.py:3")


def test_lint_reports_syntax_errors() -> None:
    with pytest.raises(SyntaxError):
        lint_source("def (:\n")


@pytest.mark.req("issue6.import-lint")
def test_the_example_architecture_uses_only_public_names() -> None:
    import pixtreme.infer.example as example

    check = lint_infer_imports(list(example.__path__), own_package="pixtreme.infer.example")
    assert check.status is CheckStatus.PASSED, [f.as_record() for f in check.findings]

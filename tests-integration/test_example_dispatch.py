"""The example architecture through the core: lazy dispatch, the missing-distribution error,
and its published cases through the core's verification and the `pixtreme-infer` command."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_dispatch_imports_the_example_only_on_attribute_access() -> None:
    result = _python(
        """
        import sys
        import pixtreme.infer
        import pixtreme.infer.verification
        import pixtreme.infer.contracts
        assert "pixtreme.infer.example" not in sys.modules, "imported eagerly"
        module = pixtreme.infer.example
        assert sys.modules["pixtreme.infer.example"] is module
        assert callable(module.verification_cases)
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_core_without_the_example_raises_the_actionable_import_error() -> None:
    # Hide the example's folder from the namespace path, as if the distribution were absent.
    result = _python(
        """
        import pixtreme.infer
        from pixtreme.infer.errors import ArchitectureNotInstalledError
        pixtreme.infer.__path__[:] = [
            p for p in pixtreme.infer.__path__ if "pixtreme-arch-example" not in p
        ]
        try:
            pixtreme.infer.example
        except ArchitectureNotInstalledError as error:
            assert isinstance(error, ImportError)
            print(error.distribution)
            print(error)
        else:
            raise SystemExit("no error")
        """
    )
    assert result.returncode == 0, result.stderr
    distribution, message = result.stdout.strip().splitlines()
    assert distribution == "pixtreme-arch-example"
    assert "how=pip install pixtreme-arch-example" in message


def test_published_cases_pass_through_the_core_verification() -> None:
    from pixtreme.infer.verification import verify_architecture

    reports = verify_architecture("example")
    statuses = {(r.scope, c.name): c.status for r in reports for c in r.checks}
    assert "failed" not in statuses.values()
    # The module suites report every core check, in the core's order.
    suite = next(r for r in reports if r.scope == "example/module-contract/1")
    assert [c.name for c in suite.checks] == [
        "frame-boundary",
        "dlpack-allocation",
        "engine-round-trip",
        "engine-incompatibility",
        "checkpoint-selector-rejection",
        "query-gpu-allocation",
        "opened-contract",
        "closed-inference",
        "reset-equivalence",
        "reset-continuation",
        "instance-isolation",
        "state-footprint",
    ]
    assert statuses[("example/module-contract/0", "checkpoint-selector-rejection")] == "passed"
    assert statuses[("example/weights", "weights-regenerate")] == "passed"


@pytest.mark.extras("onnxruntime", "onnx")
def test_verify_command_runs_the_example(tmp_path: Path) -> None:
    from pixtreme.infer.cli import main

    out, err = io.StringIO(), io.StringIO()
    record_path = tmp_path / "record.json"
    status = main(["verify", "example", "--output", str(record_path)], out=out, err=err)
    assert status == 0, out.getvalue() + err.getvalue()
    table = out.getvalue()
    assert "onnx-upscale-x2-reference" in table
    record = json.loads(record_path.read_text())
    assert record["architecture"]["name"] == "example"
    assert record["architecture"]["distribution"] == "pixtreme-arch-example"
    assert record["counts"]["failed"] == 0
    assert record["counts"]["passed"] >= 10
    checks = {
        (report["scope"], check["name"]): check["status"]
        for report in record["reports"]
        for check in report["checks"]
    }
    assert checks[("example/onnx", "onnx-recursive-filter-reference")] == "passed"

"""The pixtreme-infer command: list, verify, --version, exit statuses and output handling."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pixtreme.infer
import pytest
from pixtreme.infer import _dispatch
from pixtreme.infer.cli import EXIT_FAILED, EXIT_IO, EXIT_OK, EXIT_USAGE, main

_HOOK = """
from pixtreme.infer.verification import (
    ArchitectureCases, CheckResult, VerificationFinding, VerificationReport,
)

def _report():
    findings = ()
    if "{status}" == "failed":
        findings = (VerificationFinding("output-mismatch", "onnx/0", 1.5, 1.0,
                                        "the ONNX output differs from the reference " * 4),)
    return VerificationReport("{name}/onnx", (CheckResult("onnx-reference", "{status}", findings),))

def verification_cases():
    return ArchitectureCases(
        architecture="{name}",
        reports=(_report,),
        unverified=(("engine-round-trip", "TensorRT is not installed on this machine"),),
    )
"""


@pytest.fixture
def install_architecture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, str], None]]:
    """Create pixtreme/infer/<name>/__init__.py under tmp_path and put it in the static map."""
    root = tmp_path / "site" / "pixtreme" / "infer"
    monkeypatch.setattr(pixtreme.infer, "__path__", [*pixtreme.infer.__path__, str(root)])
    created: list[str] = []

    def install(name: str, source: str) -> None:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(textwrap.dedent(source))
        monkeypatch.setitem(_dispatch.ARCHITECTURES, name, f"pixtreme-arch-{name}")
        created.append(name)

    yield install
    for name in created:
        sys.modules.pop(f"pixtreme.infer.{name}", None)
        pixtreme.infer.__dict__.pop(name, None)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_verify_prints_a_table_and_writes_the_record_first(
    install_architecture: Callable[[str, str], None], tmp_path: Path
) -> None:
    from pixtreme.infer.verification.records import file_sha256, validate_common_record

    install_architecture("pxiok", _HOOK.format(name="pxiok", status="passed"))
    record_path = tmp_path / "record.json"
    code, out, err = _run("verify", "pxiok", "--output", str(record_path))
    assert (code, err) == (EXIT_OK, "")
    rows = [line.split() for line in out.splitlines()]
    assert rows[0] == ["scope", "check", "status", "finding"]
    assert ["pxiok/onnx", "onnx-reference", "passed"] in [row[:3] for row in rows]
    assert "pxiok: unverified (" in out
    assert "unverified means the evidence for a check could not be produced here" in out
    assert f"record: {record_path} sha256={file_sha256(record_path)}" in out
    record = json.loads(record_path.read_bytes())
    validate_common_record(record)
    assert record["status"] == "unverified"
    assert record["architecture"]["distribution"] == "pixtreme-arch-pxiok"
    assert _run("verify", "pxiok", "--output", str(record_path), "--strict")[0] == EXIT_FAILED


def test_verify_writes_no_file_unless_asked(
    install_architecture: Callable[[str, str], None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_architecture("pxiquiet", _HOOK.format(name="pxiquiet", status="passed"))
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run("verify", "pxiquiet")
    assert code == EXIT_OK
    assert list(tmp_path.iterdir()) == [tmp_path / "site"]
    assert "record:" not in out


def test_failed_check_exits_1_and_shows_the_whole_finding(
    install_architecture: Callable[[str, str], None], tmp_path: Path
) -> None:
    install_architecture("pxibad", _HOOK.format(name="pxibad", status="failed"))
    code, out, _ = _run("verify", "pxibad", "--output", str(tmp_path / "r.json"))
    assert code == EXIT_FAILED
    joined = " ".join(out.split())
    assert (
        "output-mismatch: " + "the ONNX output differs from the reference " * 4
    ).strip() in joined
    assert all(len(line) <= 100 for line in out.splitlines() if not line.startswith("record: "))
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "failed"


@pytest.mark.parametrize(
    "output",
    [
        pytest.param("missing-folder/r.json", id="no-folder"),
        pytest.param(".", id="a-folder"),
        pytest.param("", id="empty"),
        pytest.param("/dev/null", id="not-regular"),
    ],
)
def test_unwritable_output_is_refused_before_verification(
    install_architecture: Callable[[str, str], None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    output: str,
) -> None:
    install_architecture("pxiio", _HOOK.format(name="pxiio", status="passed"))
    monkeypatch.chdir(tmp_path)
    code, out, err = _run("verify", "pxiio", "--output", output)
    assert code == EXIT_IO
    assert out == ""
    assert err.startswith("pixtreme-infer verify: ")
    assert "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write into a read-only folder")
def test_read_only_folder_is_refused(
    install_architecture: Callable[[str, str], None], tmp_path: Path
) -> None:
    install_architecture("pxiro", _HOOK.format(name="pxiro", status="passed"))
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    assert _run("verify", "pxiro", "--output", str(folder / "r.json"))[0] == EXIT_IO


def test_usage_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code, _, err = _run("verify", "exampel", "--output", str(tmp_path / "r.json"))
    assert code == EXIT_USAGE
    assert "Did you mean 'example'" in err
    monkeypatch.setitem(_dispatch.ARCHITECTURES, "pxighost", "pixtreme-arch-pxighost")
    code, _, err = _run("verify", "pxighost")
    assert code == EXIT_USAGE
    assert "how=pip install pixtreme-arch-pxighost" in err
    assert _run("frobnicate")[0] == EXIT_USAGE
    assert not (tmp_path / "r.json").exists()


def test_list_shows_architectures_and_extras(
    install_architecture: Callable[[str, str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    install_architecture("pxiok", "")
    monkeypatch.setitem(_dispatch.ARCHITECTURES, "pxighost", "pixtreme-arch-pxighost")
    code, out, _ = _run("list")
    assert code == EXIT_OK
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "yes" in rows["example"]
    assert {"span", "cda_vsr"} <= set(rows)
    assert rows["pxiok"].split()[2:4] == ["static", "yes"]
    assert "no: pip install pixtreme-arch-pxighost" in rows["pxighost"]
    assert rows["verify"].split()[0] == "verify"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == EXIT_OK
    assert capsys.readouterr().out.strip() == f"pixtreme-infer {version('pixtreme-infer')}"
    result = subprocess.run(
        [sys.executable, "-m", "pixtreme.infer.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"pixtreme-infer {version('pixtreme-infer')}"


def test_closed_pipe_is_quiet() -> None:
    """`pixtreme-infer list | head -1` prints its first line and no traceback."""
    code = (
        "import sys; from pixtreme.infer.cli import console_main; "
        "sys.argv = ['pixtreme-infer', 'list']; console_main()"
    )
    result = subprocess.run(
        f'{sys.executable} -c "{code}" | head -c 1',
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.stdout == "a"
    assert "Traceback" not in result.stderr
    assert "BrokenPipe" not in result.stderr


def test_console_script_runs(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("pixtreme-infer")
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}: reinstall the package")
    listed = subprocess.run(
        [str(script), "list"], capture_output=True, text=True, timeout=120, check=False
    )
    assert listed.returncode == 0, listed.stderr
    assert "pixtreme-arch-example" in listed.stdout
    verified = subprocess.run(
        [str(script), "verify", "example", "--output", str(tmp_path / "example.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    record = json.loads((tmp_path / "example.json").read_text())
    assert record["architecture"]["name"] == "example"
    assert verified.returncode == (1 if record["status"] == "failed" else 0), verified.stdout


def test_record_is_written_before_a_closed_pipe(tmp_path: Path) -> None:
    """`pixtreme-infer verify example --output r.json | head -c 1` still leaves the record."""
    record = tmp_path / "r.json"
    code = (
        "import sys; from pixtreme.infer.cli import console_main; "
        f"sys.argv = ['pixtreme-infer', 'verify', 'example', '--output', {str(record)!r}]; "
        "console_main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode in (EXIT_OK, EXIT_FAILED), result.stderr
    assert json.loads(record.read_text())["architecture"]["name"] == "example"
    record.unlink()
    piped = subprocess.run(
        f'{sys.executable} -c "{code}" | head -c 1',
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert piped.stdout == "s"
    assert "Traceback" not in piped.stderr
    assert json.loads(record.read_text())["architecture"]["name"] == "example"

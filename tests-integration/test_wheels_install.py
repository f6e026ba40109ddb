"""The three wheels build, pass their file-list policy, and install together into a fresh venv.

Third-party dependencies come from the workspace lock (`uv export`), except TensorRT's
packages, which only NVIDIA's index serves; `uv pip check` must then report exactly that one
unmet requirement and nothing else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = ("pillow-gpu", "pixtreme-infer", "pixtreme-arch-example")
UNOBTAINABLE = ("tensorrt-cu13", "tensorrt-cu13-libs", "tensorrt-cu13-bindings")

pytestmark = pytest.mark.integration


def _uv() -> str:
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:
        pytest.fail("the integration tests need uv on PATH (pip install uv)")
    return uv


def _run(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "UV_PYTHON"}}
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=env, check=False
    )
    if result.returncode != 0:
        pytest.fail(
            f"command failed ({result.returncode}): {' '.join(map(str, args))}\n"
            f"stdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-4000:]}"
        )
    return result


@pytest.fixture(scope="module")
def wheel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run(_uv(), "build", "--all-packages", "--wheel", "--out-dir", out, "--python", sys.executable)
    return out


def _venv_with(
    wheel_dir: Path, tmp_path_factory: pytest.TempPathFactory, distributions: tuple[str, ...]
) -> Path:
    base = tmp_path_factory.mktemp("venv")
    venv = base / "venv"
    uv = _uv()
    _run(uv, "venv", "--python", sys.executable, venv)
    python = venv / "bin" / "python"
    requirements = base / "locked.txt"
    no_emit = [arg for name in UNOBTAINABLE for arg in ("--no-emit-package", name)]
    _run(
        uv, "export", "--frozen", "--all-packages", "--all-extras", "--no-dev",
        "--no-emit-workspace", "--no-hashes", *no_emit, "--output-file", requirements,
    )  # fmt: skip
    _run(uv, "pip", "install", "--python", python, "--no-deps", "-r", requirements)
    wheels = [w for w in sorted(wheel_dir.glob("*.whl")) if _wheel_distribution(w) in distributions]
    assert len(wheels) == len(distributions), [w.name for w in wheels]
    _run(uv, "pip", "install", "--python", python, "--no-deps", *wheels)
    return venv


def _wheel_distribution(wheel: Path) -> str:
    return wheel.name.split("-", 1)[0].replace("_", "-")


@pytest.fixture(scope="module")
def fresh_venv(wheel_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv_with(wheel_dir, tmp_path_factory, DISTRIBUTIONS)


@pytest.fixture(scope="module")
def core_only_venv(wheel_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv_with(wheel_dir, tmp_path_factory, ("pixtreme-infer",))


def _python(venv: Path, code: str) -> str:
    return _run(venv / "bin" / "python", "-c", textwrap.dedent(code), cwd=venv).stdout


def test_every_wheel_passes_its_file_list_policy(wheel_dir: Path) -> None:
    result = _run(sys.executable, ROOT / "tools" / "check_wheels.py", wheel_dir, "--require-all")
    assert "3 archive(s) pass" in result.stdout


def test_wheels_install_together_with_only_tensorrt_missing(fresh_venv: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "UV_PYTHON"}}
    check = subprocess.run(
        [_uv(), "pip", "check", "--python", str(fresh_venv / "bin" / "python")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    report = (check.stdout + check.stderr).lower()
    problem_lines = [
        line for line in report.splitlines() if "missing" in line or "requires" in line
    ]
    assert problem_lines, f"expected the unmet tensorrt-cu13 requirement to be reported:\n{report}"
    assert all("tensorrt" in line for line in problem_lines), report


def test_installed_layout_keeps_namespace_ownership(fresh_venv: Path) -> None:
    out = _python(
        fresh_venv,
        """
        import importlib.metadata as m
        owners = {}
        for dist in ("pixtreme", "pixtreme-infer", "pixtreme-arch-example"):
            for f in m.files(dist) or ():
                owners.setdefault(str(f), []).append(dist)
        print(owners.get("pixtreme/__init__.py"))
        print(owners.get("pixtreme/infer/__init__.py"))
        print(owners.get("pixtreme/infer/example/__init__.py"))
        """,
    )
    assert out.split("\n")[:3] == [
        "['pixtreme']",
        "['pixtreme-infer']",
        "['pixtreme-arch-example']",
    ]


def test_core_import_leaves_architectures_unimported_until_accessed(fresh_venv: Path) -> None:
    out = _python(
        fresh_venv,
        """
        import sys
        import pixtreme.infer
        arch = sorted(n for n in sys.modules if n.startswith("pixtreme.infer.example"))
        heavy = sorted(n for n in ("onnxruntime", "pynvml", "tensorrt", "tensoracle", "torch")
                       if n in sys.modules)
        print(arch, heavy)
        example = pixtreme.infer.example
        print(example.__name__, "pixtreme.infer.example" in sys.modules)
        """,
    )
    assert out.split("\n")[:2] == ["[] []", "pixtreme.infer.example True"]


def test_core_without_architecture_raises_actionable_import_error(core_only_venv: Path) -> None:
    out = _python(
        core_only_venv,
        """
        import pixtreme.infer
        try:
            pixtreme.infer.example
        except ImportError as error:
            print(isinstance(error, ImportError), "|", error)
        else:
            print("no error")
        """,
    )
    kind, _, message = out.strip().partition(" | ")
    assert kind == "True", f"expected an ImportError subclass: {out}"
    assert "pixtreme-arch-example" in message, message
    assert "pip install" in message, message

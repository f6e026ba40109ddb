"""The three wheels build, pass their file-list policy, and install together into a fresh venv.

Third-party dependencies come from the workspace lock (`uv export`), except TensorRT's
packages, which only NVIDIA's index serves; `uv pip check` must then report exactly that one
unmet requirement and nothing else.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parent))

from integration_support import (
    ROOT,
    built_wheel,
    run,
    uv,
    wheel_distribution,
    wheel_metadata,
)

DISTRIBUTIONS = ("pillow-gpu", "pixtreme-infer", "pixtreme-arch-example")
UNOBTAINABLE = ("tensorrt-cu13", "tensorrt-cu13-libs", "tensorrt-cu13-bindings")
NEWEST_PUBLISHED_CORE = Version("0.15.1")

pytestmark = pytest.mark.integration

# The `wheel_dir` fixture (the three wheels, built once per session) is in conftest.py.


def _venv_with(
    wheel_dir: Path, tmp_path_factory: pytest.TempPathFactory, distributions: tuple[str, ...]
) -> Path:
    base = tmp_path_factory.mktemp("venv")
    venv = base / "venv"
    run(uv(), "venv", "--python", sys.executable, venv)
    python = venv / "bin" / "python"
    requirements = base / "locked.txt"
    no_emit = [arg for name in UNOBTAINABLE for arg in ("--no-emit-package", name)]
    run(
        uv(), "export", "--frozen", "--all-packages", "--all-extras", "--no-dev",
        "--no-emit-workspace", "--no-hashes", *no_emit, "--output-file", requirements,
    )  # fmt: skip
    run(uv(), "pip", "install", "--python", python, "--no-deps", "-r", requirements)
    wheels = [w for w in sorted(wheel_dir.glob("*.whl")) if wheel_distribution(w) in distributions]
    assert len(wheels) == len(distributions), [w.name for w in wheels]
    run(uv(), "pip", "install", "--python", python, "--no-deps", *wheels)
    return venv


@pytest.fixture(scope="module")
def fresh_venv(wheel_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv_with(wheel_dir, tmp_path_factory, DISTRIBUTIONS)


@pytest.fixture(scope="module")
def core_only_venv(wheel_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv_with(wheel_dir, tmp_path_factory, ("pixtreme-infer",))


def _python(venv: Path, code: str) -> str:
    return run(venv / "bin" / "python", "-c", textwrap.dedent(code), cwd=venv).stdout


def test_every_wheel_passes_its_file_list_policy(wheel_dir: Path) -> None:
    result = run(sys.executable, ROOT / "tools" / "check_wheels.py", wheel_dir, "--require-all")
    assert "3 archive(s) pass" in result.stdout


def test_wheels_install_together_with_only_tensorrt_missing(fresh_venv: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "UV_PYTHON"}}
    check = subprocess.run(
        [uv(), "pip", "check", "--python", str(fresh_venv / "bin" / "python")],
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


def test_built_core_version_continues_the_published_series(wheel_dir: Path) -> None:
    """Without tags (as in CI) the core builds a release version above the published 0.15.1.

    A pre-release (.devN) would not do: pip and uv choose the published release over it.
    """
    version = Version(wheel_metadata(built_wheel(wheel_dir, "pixtreme-infer"))["Version"])
    assert version > NEWEST_PUBLISHED_CORE, version
    assert not version.is_prerelease, f"{version} is a pre-release; pip would pick 0.15.1"
    assert version.local, f"{version}: an untagged build must carry +g<commit> (not uploadable)"


def test_example_requires_a_core_that_the_built_core_satisfies(wheel_dir: Path) -> None:
    core = Version(wheel_metadata(built_wheel(wheel_dir, "pixtreme-infer"))["Version"])
    example = wheel_metadata(built_wheel(wheel_dir, "pixtreme-arch-example"))
    requirements = [Requirement(r) for r in example.get_all("Requires-Dist") or []]
    on_core = [r for r in requirements if r.name == "pixtreme-infer" and r.marker is None]
    assert [str(r.specifier) for r in on_core] == [">=0.16"], requirements
    assert on_core[0].specifier.contains(core, prereleases=False), core


def test_cli_version_prints_the_installed_version(fresh_venv: Path) -> None:
    installed = _python(
        fresh_venv, "import importlib.metadata as m; print(m.version('pixtreme-infer'))"
    ).strip()
    result = run(fresh_venv / "bin" / "pixtreme-infer", "--version", cwd=fresh_venv)
    assert installed in result.stdout.split(), (installed, result.stdout, result.stderr)

"""Helpers shared by the cross-package tests (fixtures are in conftest.py).

Tests that need the package index skip only when it cannot be reached, and say so in the
reason; any other failure of pip fails the test.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import release  # noqa: E402  (tools/release.py: the index client the release floor uses)


def uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        pytest.fail("the integration tests need uv on PATH (pip install uv)")
    return found


def clean_env() -> dict[str, str]:
    """The environment without the settings of the workspace venv that uv and pip would follow."""
    return {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "UV_PYTHON"}}


def run(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run a command; a non-zero exit fails the test with its output."""
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(
            f"command failed ({result.returncode}): {' '.join(map(str, args))}\n"
            f"stdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-4000:]}"
        )
    return result


@functools.cache
def index_unreachable_reason() -> str | None:
    """Why the package index pip is configured with cannot be reached, or None when it can."""
    url = release.configured_index_url()
    try:
        release.index_versions("pixtreme-infer", url, timeout=30)
    except release.IndexUnreachableError as error:
        return f"the package index cannot be reached ({error})"
    return None


def skip_if_index_unreachable_else_fail(
    result: subprocess.CompletedProcess[str], what: str
) -> None:
    """After a command that needs the index failed: skip when the index is down, else fail."""
    reason = index_unreachable_reason()
    if reason is not None:
        pytest.skip(f"{what} needs the package index: {reason}")
    pytest.fail(
        f"{what} failed ({result.returncode}) although the package index answers:\n"
        f"stdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-4000:]}"
    )


def wheel_distribution(wheel: Path) -> str:
    return wheel.name.split("-", 1)[0].replace("_", "-")


def built_wheel(wheel_dir: Path, distribution: str) -> Path:
    wheels = [w for w in wheel_dir.glob("*.whl") if wheel_distribution(w) == distribution]
    assert len(wheels) == 1, [w.name for w in wheel_dir.glob("*.whl")]
    return wheels[0]


def wheel_metadata(wheel: Path) -> Message:
    """The METADATA of a wheel, parsed."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode())

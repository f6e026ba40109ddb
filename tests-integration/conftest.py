"""Fixtures shared by the cross-package tests: the built wheels, a pip, published wheels.

Published wheels are downloaded once into pytest's cache folder
(.pytest_cache/d/published-wheels), so reruns need neither the download nor the index.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from integration_support import (
    clean_env,
    run,
    skip_if_index_unreachable_else_fail,
    uv,
)


def _has_pip(python: str) -> bool:
    result = subprocess.run(
        [python, "-m", "pip", "--version"], capture_output=True, env=clean_env(), check=False
    )
    return result.returncode == 0


@pytest.fixture(scope="session")
def pip_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Python 3.12 with pip: the workspace's interpreter (the venv's base) or a seeded venv."""
    for candidate in (sys.executable, getattr(sys, "_base_executable", "")):
        if candidate and _has_pip(candidate):
            return candidate
    venv = tmp_path_factory.mktemp("pip") / "venv"
    command = [uv(), "venv", "--seed", "--python", sys.executable, str(venv)]
    result = subprocess.run(command, capture_output=True, text=True, env=clean_env(), check=False)
    if result.returncode != 0:
        skip_if_index_unreachable_else_fail(result, "creating a venv with pip")
    return str(venv / "bin" / "python")


@pytest.fixture(scope="session")
def published_wheel(
    request: pytest.FixtureRequest, pip_python: str, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, str], Path]:
    """Return a function that gives the published wheel of ``name==version`` (no dependencies)."""
    cache = getattr(request.config, "cache", None)  # absent with -p no:cacheprovider
    folder = (
        cache.mkdir("published-wheels") if cache is not None else tmp_path_factory.mktemp("pub")
    )

    def get(name: str, version: str) -> Path:
        pattern = f"{name.replace('-', '_')}-{version}-*.whl"
        found = sorted(folder.glob(pattern))
        if not found:
            result = subprocess.run(
                [
                    pip_python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                    "--disable-pip-version-check", "--retries", "2", "--timeout", "60",
                    "-d", str(folder), f"{name}=={version}",
                ],
                capture_output=True,
                text=True,
                env=clean_env(),
                check=False,
            )  # fmt: skip
            if result.returncode != 0:
                skip_if_index_unreachable_else_fail(result, f"downloading {name}=={version}")
            found = sorted(folder.glob(pattern))
            assert found, f"pip downloaded no {pattern} into {folder}: {result.stdout[-2000:]}"
        return found[0]

    return get


@pytest.fixture(scope="session")
def wheel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three workspace wheels, built once per session."""
    out = tmp_path_factory.mktemp("dist")
    run(uv(), "build", "--all-packages", "--wheel", "--out-dir", out, "--python", sys.executable)
    return out

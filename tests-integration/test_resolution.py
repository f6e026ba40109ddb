"""pip's normal resolution from our built wheels plus the package index picks our core.

With the three wheels built (the session's `wheel_dir`), a fresh venv runs
`pip install --dry-run --ignore-installed --report REPORT --find-links DIST REQUIREMENT`, no
`--no-deps` and no `--pre`, for "pixtreme-infer[ort,verify]" and for "pixtreme-arch-example".
The report must show the pixtreme-infer from DIST (our version, >= 0.16), not the published
0.15.1. This is what failed before the version scheme changed: an untagged build was
0.0.1.devN, below 0.15.1, and a .devN pre-release loses to a release even when it sorts
higher.

Why a dry run and not an install: measured on this project's machine (2 cores, pip 26 in a
fresh venv, the index as configured here, four runs), one dry run took 14-30 s for either
requirement (the whole module, with the venv, 38-53 s); pip downloads each chosen wheel to
read its metadata (32 packages, 1.49 GB: pixtreme 2.0 brings cupy-cuda13x and the CUDA 13
libraries). A real install of "pixtreme-infer[ort,verify]" (measured once, no pip cache) took
34 s and left a 2.2 GB venv, and it checks nothing more about which distribution pip picks,
which the report states exactly (name, version, URL). Installing and importing the wheels is
test_wheels_install.py's job.

TensorRT: the example needs tensoracle -> tensorrt-cu13 -> tensorrt-cu13-libs, whose only
file on the index is a stub sdist whose metadata step stops without an NVIDIA driver
("nvidia-smi command not found"). For the example's resolution only, a metadata-only
stand-in wheel of tensorrt-cu13-libs at the locked version (and constraints pinning the three
TensorRT packages to the lock) lets pip finish. Nothing is installed.

Skipped only when the package index cannot be reached.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import tomllib
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parent))

from integration_support import (
    ROOT,
    built_wheel,
    clean_env,
    skip_if_index_unreachable_else_fail,
    uv,
    wheel_metadata,
)

pytestmark = pytest.mark.integration

NEWEST_PUBLISHED_CORE = Version("0.15.1")
TENSORRT = ("tensorrt-cu13", "tensorrt-cu13-libs", "tensorrt-cu13-bindings")
STAND_INS = ("tensorrt-cu13-libs",)  # no wheel on the index; its sdist needs an NVIDIA driver


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _locked_versions(names: tuple[str, ...]) -> dict[str, str]:
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    found = {p["name"]: p["version"] for p in lock["package"] if p["name"] in names}
    assert set(found) == set(names), f"uv.lock lacks {set(names) - set(found)}"
    return found


def _stand_in_wheel(folder: Path, name: str, version: str) -> Path:
    """A wheel holding only metadata, so that pip resolves past a package it cannot build."""
    stem = f"{name.replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    wheel = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(
            f"{info}/METADATA",
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            "Summary: test stand-in (the real package comes from NVIDIA's index)\n",
        )
        archive.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test_resolution\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n",
        )
        archive.writestr(f"{info}/RECORD", f"{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")
    return wheel


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, env=clean_env(), timeout=900, check=False
    )


@pytest.fixture(scope="module")
def resolver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with pip (seeded by uv from the index)."""
    venv = tmp_path_factory.mktemp("resolver") / "venv"
    command = [uv(), "venv", "--seed", "--python", sys.executable, str(venv)]
    result = _run(command)
    if result.returncode != 0:
        skip_if_index_unreachable_else_fail(result, "creating a venv with pip")
    return venv / "bin" / "python"


@pytest.fixture(scope="module")
def tensorrt_stand_ins(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """pip options: a find-links folder of stand-ins, constraints pinning TensorRT to the lock."""
    folder = tmp_path_factory.mktemp("stand-ins")
    locked = _locked_versions(TENSORRT)
    for name in STAND_INS:
        _stand_in_wheel(folder, name, locked[name])
    constraints = folder / "constraints.txt"
    constraints.write_text("".join(f"{name}=={version}\n" for name, version in locked.items()))
    return ["--find-links", str(folder), "--constraint", str(constraints)]


def _dry_run(
    resolver: Path, requirement: str, wheel_dir: Path, tmp_path: Path, extra: list[str]
) -> tuple[dict[str, Any], float]:
    report = tmp_path / "report.json"
    command = [
        str(resolver), "-m", "pip", "install", "--dry-run", "--ignore-installed",
        "--disable-pip-version-check", "--retries", "2", "--timeout", "60",
        "--report", str(report), "--find-links", str(wheel_dir), *extra, requirement,
    ]  # fmt: skip
    started = time.monotonic()
    result = _run(command)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        skip_if_index_unreachable_else_fail(result, f"resolving {requirement!r} with pip")
    return json.loads(report.read_text(encoding="utf-8")), seconds


def _chosen(report: dict[str, Any], distribution: str) -> dict[str, Any]:
    chosen = [i for i in report["install"] if _normalize(i["metadata"]["name"]) == distribution]
    assert len(chosen) == 1, [i["metadata"]["name"] for i in report["install"]]
    return chosen[0]


def _from_file(item: dict[str, Any]) -> Path:
    url = urllib.parse.urlsplit(item["download_info"]["url"])
    assert url.scheme == "file", f"{item['metadata']['name']} came from {url.geturl()}"
    return Path(urllib.request.url2pathname(url.path)).resolve()


@pytest.mark.parametrize("requirement", ["pixtreme-infer[ort,verify]", "pixtreme-arch-example"])
def test_pip_resolution_picks_our_core_over_the_published_one(
    requirement: str,
    resolver: Path,
    wheel_dir: Path,
    tensorrt_stand_ins: list[str],
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    extra = tensorrt_stand_ins if requirement == "pixtreme-arch-example" else []
    report, seconds = _dry_run(resolver, requirement, wheel_dir, tmp_path, extra)
    record_property("pip_dry_run_seconds", round(seconds, 1))
    ours = built_wheel(wheel_dir, "pixtreme-infer")
    our_version = Version(wheel_metadata(ours)["Version"])
    core = _chosen(report, "pixtreme-infer")
    chosen_version = Version(core["metadata"]["version"])
    assert chosen_version != NEWEST_PUBLISHED_CORE, "pip chose the published 0.15.1"
    assert chosen_version == our_version, (chosen_version, our_version)
    assert chosen_version >= Version("0.16"), chosen_version
    assert _from_file(core) == ours.resolve()
    if requirement == "pixtreme-arch-example":
        example = _chosen(report, "pixtreme-arch-example")
        assert _from_file(example) == built_wheel(wheel_dir, "pixtreme-arch-example").resolve()
        assert "pixtreme-infer>=0.16" in example["metadata"]["requires_dist"]

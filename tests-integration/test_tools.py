"""The maintainer tools: every script answers --help, and the wheel policy check catches breaks."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import check_wheels  # noqa: E402

SCRIPTS = sorted(
    p for p in (ROOT / "tools").iterdir() if p.suffix in {".py", ".sh"} and p.is_file()
)


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_every_tool_answers_help(script: Path) -> None:
    command = ["bash", str(script)] if script.suffix == ".sh" else [sys.executable, str(script)]
    result = subprocess.run(
        [*command, "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.strip().splitlines()) >= 3, result.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    uv = shutil.which("uv")
    assert uv is not None, "the tools tests need uv on PATH"
    subprocess.run(
        [uv, "build", "--package", "pixtreme-infer", "--out-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    return out


def _rewrite_wheel(wheel: Path, target: Path, *, add: dict[str, str], drop: str = "") -> Path:
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target / wheel.name, "w") as copy:
        for item in source.infolist():
            if drop and item.filename == drop:
                continue
            copy.writestr(item, source.read(item.filename))
        for name, text in add.items():
            copy.writestr(name, text)
    return target / wheel.name


def test_built_core_passes_its_policy(built: Path) -> None:
    assert check_wheels.check_directory(built, {}) == []


def test_namespace_root_in_core_wheel_is_caught(built: Path, tmp_path: Path) -> None:
    wheel = next(built.glob("*.whl"))
    bad = _rewrite_wheel(wheel, tmp_path, add={"pixtreme/__init__.py": ""})
    problems, _ = check_wheels.check_wheel(bad, check_wheels.POLICIES["pixtreme-infer"])
    assert any("'pixtreme/__init__.py'" in p and "another distribution owns" in p for p in problems)


def test_architecture_module_in_core_wheel_is_caught(built: Path, tmp_path: Path) -> None:
    wheel = next(built.glob("*.whl"))
    bad = _rewrite_wheel(wheel, tmp_path, add={"pixtreme/infer/example/__init__.py": ""})
    problems, _ = check_wheels.check_wheel(bad, check_wheels.POLICIES["pixtreme-infer"])
    assert any("belongs to another distribution" in p for p in problems), problems


def test_lost_source_file_is_caught(built: Path, tmp_path: Path) -> None:
    wheel = next(built.glob("*.whl"))
    bad = _rewrite_wheel(wheel, tmp_path, add={}, drop="pixtreme/infer/py.typed")
    problems, _ = check_wheels.check_wheel(bad, check_wheels.POLICIES["pixtreme-infer"])
    assert any("py.typed" in p for p in problems), problems


def test_forbidden_dependency_is_caught(built: Path, tmp_path: Path) -> None:
    wheel = next(built.glob("*.whl"))
    with zipfile.ZipFile(wheel) as source:
        metadata_name = next(n for n in source.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = source.read(metadata_name).decode()
    patched = metadata.replace(
        "Requires-Dist:", "Requires-Dist: tensoracle>=1.3\nRequires-Dist:", 1
    )
    bad = _rewrite_wheel(wheel, tmp_path, add={}, drop=metadata_name)
    with zipfile.ZipFile(bad, "a") as archive:
        archive.writestr(metadata_name, patched)
    problems, _ = check_wheels.check_wheel(bad, check_wheels.POLICIES["pixtreme-infer"])
    assert any("must not depend on 'tensoracle'" in p for p in problems), problems


def test_executor_profile_measures_a_case(tmp_path: Path) -> None:
    """The profile tool runs a real executor lane on this machine's adapter and records it."""
    import json

    prefix = tmp_path / "profile"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "executor_profile.py"),
            "--cases=chops_invert:L:64:4",
            "--seconds=0.3",
            "--idle=0.01",
            "--settings=4x1,4x1:spin",
            "--top=8",
            f"--output={prefix}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(prefix.with_suffix(".json").read_text())
    assert report["calibration"]["python_1000_items_us"] > 0
    assert report["calibration"]["copy_64kib_cold_us"] > 0
    case = report["cases"]["chops_invert:L:64:4"]
    for name in ("back_to_back", "after_idle", "after_busy"):
        assert case[name]["windows"] >= 3
        assert case[name]["img_per_s"] > 0
    assert case["settings"]["4x1"]["largest_submission"] == 4
    assert case["settings"]["4x1:spin"]["img_per_s"] > 0
    assert case["stats"]["submitted_jobs"] >= 4
    profiled = [name for name, _micros, _calls in case["profile"]["cumulative_us_per_job"]]
    assert any("_next" in name for name in profiled), profiled
    assert "back_to_back" in result.stdout
    assert "profile (cProfile" in result.stdout


def _random_graphs(tmp_path: Path, *args: str) -> tuple[Any, Any]:
    """Run tools/random_graphs.py with ``args``; (the finished process, its JSON report)."""
    import json

    report_path = tmp_path / "graphs.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools/random_graphs.py"), *args, f"--output={report_path}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-2000:]
    return result, json.loads(report_path.read_text())


def test_random_graphs_runs_the_parity_draw(tmp_path: Path) -> None:
    """The campaign tool runs the random-graph test's draw on this machine's adapter."""
    result, report = _random_graphs(tmp_path, "--start=7", "--count=12", "--every=6", "--large")
    assert sum(report["counts"].values()) == 12
    assert report["differences"] == []
    assert report["counts"].get("exact", 0) >= 1
    assert "12 graphs in" in result.stdout


def test_random_graphs_takes_sources_from_files(tmp_path: Path) -> None:
    """With --files the sources are files under a folder, opened by each library."""
    from PIL import Image

    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (40, 30), (200, 40, 90)).save(images / "photo.jpg", quality=90)
    Image.new("P", (17, 9), 3).save(images / "palette.png")
    (images / "notes.txt").write_text("not an image\n")
    _result, report = _random_graphs(tmp_path, "--count=10", f"--files={images}")
    assert sum(report["counts"].values()) == 10
    assert report["counts"].get("exact", 0) >= 1
    assert report["files"] == str(images)


def test_random_graphs_on_files_of_several_frames(tmp_path: Path) -> None:
    """With --frames only the files of several frames are drawn from (a folder with none is
    refused with the reason)."""
    from PIL import Image

    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (20, 12), (9, 80, 200)).save(images / "still.png")
    frames = [Image.new("RGB", (20, 12), (40 * index, 0, 0)) for index in range(4)]
    frames[0].save(images / "anim.png", save_all=True, append_images=frames[1:])
    _result, report = _random_graphs(tmp_path, "--count=12", f"--files={images}", "--frames")
    assert sum(report["counts"].values()) == 12
    assert report["counts"].get("exact", 0) >= 1
    (images / "anim.png").unlink()
    refused = subprocess.run(
        [sys.executable, str(ROOT / "tools/random_graphs.py"), f"--files={images}", "--frames"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert refused.returncode == 2
    assert "no file of several frames under" in refused.stderr

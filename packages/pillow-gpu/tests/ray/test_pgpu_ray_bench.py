"""The Ray benchmark lane (``python -m pillow_gpu.bench.ray``) on a tiny folder.

One run for the module on its own local cluster (``num_cpus=2``, no GPU resources): four
small photo-like JPEGs (one EXIF-rotated), one Ray lane with one actor, one timed window and
no warm-up. What must hold is the result's shape and its parity checks, not any timing: every
lane ran, every output was compared with Pillow's, every time is positive. A lane whose output
differs from Pillow's fails the run (checked without Ray, on the single-process lane).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu.bench._ray import (
    RayBenchConfig,
    _measure,
    _Mismatch,
    _pillow_outputs,
    _single_lane,
    photo_folder,
    run_ray_benchmark,
)
from pillow_gpu.bench._ray_report import failed_lanes, render_ray_markdown, write_ray_results
from pillow_gpu.bench.ray import main
from pillow_gpu.cli._chain import parse_chain

pytestmark = [
    pytest.mark.ray,
    pytest.mark.filterwarnings(r"ignore::DeprecationWarning:ray\.data\.context"),
]

SIZES = ((96, 64), (64, 96))
LANES = ["pillow", "single", "ray-1"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ray-bench") / "in"
    paths = photo_folder(folder, files=4, sizes=SIZES)
    with PILImage.open(paths[3]) as rotated, PILImage.open(paths[0]) as plain:
        assert rotated.getexif().get(0x0112) == 6  # exif_transpose has work to do
        assert (plain.format, plain.size, rotated.size) == ("JPEG", SIZES[0], SIZES[1])
    taken = set()
    for path in paths:  # each photo its own metadata, as a camera's
        with PILImage.open(path) as photo:
            taken.add(photo.getexif().get(0x0132))
    assert len(taken) == len(paths)
    return folder


@pytest.fixture(scope="module")
def config(folder: Path) -> RayBenchConfig:
    return RayBenchConfig(
        chain="exif_transpose,convert:RGB,thumbnail:48x48,gaussian_blur:2",
        inputs=str(folder),
        actors=(1,),
        batch_size=2,
        repeats=1,
        num_cpus=2,
        warmup=False,
    )


@pytest.fixture(scope="module")
def result(config: RayBenchConfig) -> dict[str, Any]:
    return run_ray_benchmark(config)


def test_every_lane_ran_and_matched_pillow(result: dict[str, Any]) -> None:
    assert [lane["lane"] for lane in result["lanes"]] == LANES
    assert failed_lanes(result) == []
    for lane in result["lanes"]:
        name = lane["lane"]
        assert (lane["parity"], lane.get("error"), lane["refused"]) == ("exact", None, 0), name
        assert lane["files"] == 4, name
        assert len(lane["windows_s"]) == 1, name
        for key in ("wall_s", "files_per_s", "ms_per_file", "vs_single"):
            assert lane[key] > 0, (name, key, lane[key])
        assert "first_run" not in lane, name  # warmup=False
    single = result["lanes"][1]
    assert (single["overhead_ms_per_file"], single["vs_single"]) == (0.0, 1.0)


def test_the_ray_lane_reports_its_cluster_and_actor_times(result: dict[str, Any]) -> None:
    cluster = result["cluster"]
    assert (cluster["reused"], cluster["address"], cluster["gpus_per_actor"]) == (
        False,
        "local",
        0.0,
    )
    assert cluster["start_s"] > 0
    assert cluster["resources"]["CPU"] == 2.0
    ray_lane = result["lanes"][2]
    assert (ray_lane["actors"], ray_lane["actor_processes"]) == (1, 1)
    for key in ("startup_s", "steady_s", "actor_init_s", "steady_ms_per_file"):
        assert ray_lane[key] > 0, (key, ray_lane[key])
    # The two halves of the dataset run; the window also holds the parity check after it.
    assert ray_lane["startup_s"] + ray_lane["steady_s"] <= ray_lane["wall_s"]
    assert ray_lane["startup_s"] + ray_lane["steady_s"] == pytest.approx(ray_lane["wall_s"], 0.05)
    assert result["inputs"] == {
        "folder": result["config"]["inputs"],
        "files": 4,
        "bytes": sum(path.stat().st_size for path in Path(result["config"]["inputs"]).iterdir()),
        "pillow_failures": 0,
    }


def test_results_are_written_as_json_and_markdown(result: dict[str, Any], tmp_path: Path) -> None:
    written = write_ray_results(result, tmp_path / "sub" / "ray")
    assert [path.name for path in written] == ["ray.json", "ray.md"]
    assert json.loads(written[0].read_text(encoding="utf-8")) == json.loads(json.dumps(result))
    markdown = written[1].read_text(encoding="utf-8")
    assert markdown == render_ray_markdown(result)
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]] == LANES
    assert all(row.endswith("| exact |") for row in rows[1:])


@pytest.mark.parametrize("flipped", [0, 3], ids=["plain-jpeg", "exif-rotated-jpeg"])
def test_an_output_that_is_not_pillows_fails_the_lane(
    folder: Path, config: RayBenchConfig, flipped: int
) -> None:
    paths = sorted(path.resolve() for path in folder.iterdir())
    oracle = _pillow_outputs(parse_chain(config.chain), paths, config.output_format)
    good = _single_lane(paths, config, oracle)
    assert good.window() == 4  # the true oracle passes
    tampered = dict(oracle)
    key = str(paths[flipped])
    expected = tampered[key]
    assert expected is not None
    tampered[key] = expected[:-1] + bytes([expected[-1] ^ 1])
    with pytest.raises(_Mismatch, match=rf"1 of 4 outputs are not Pillow's: {paths[flipped].name}"):
        _single_lane(paths, config, tampered).window()
    (record,) = _measure([_single_lane(paths, config, tampered)], config, 4, lambda _: None)
    assert (record["parity"], "wall_s" in record) == ("FAILED", False)
    assert f"not Pillow's: {paths[flipped].name} (bytes differ)" in record["error"]
    assert failed_lanes({"lanes": [record]}) == ["single"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--files", "0"], "files, batch size, repeats, actors and sizes must be at least 1"),
        (["--chain", "nope"], "step 1 names an unknown operation"),
    ],
    ids=["no-files", "unknown-step"],
)
def test_bad_options_are_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "fix: " in err

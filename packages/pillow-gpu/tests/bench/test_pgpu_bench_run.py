"""A tiny benchmark run: every lane checks parity, then JSON, Markdown and the plot are written.

No timing is asserted (speed is measured by the benchmark itself, never by tests).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu.bench import ALL_LANES, BenchConfig, render_markdown, run_benchmark, write_plot
from pillow_gpu.bench._cli import config_from_args
from pillow_gpu.bench._runner import default_config
from pillow_gpu.bench._world import WORLD_LANES
from pillow_gpu.cli import build_parser, main
from pillow_gpu.gpu._device import SharedDevice

TINY = BenchConfig(
    workloads=("multiply",),
    modes=("RGB",),
    sizes=(16,),
    batches=(3,),
    repeats=2,
    sweep_max_jobs=(2,),
    sweep_max_in_flight=(1,),
    processes=2,
)


@pytest.fixture(scope="module")
def tiny_result(device: SharedDevice) -> dict[str, Any]:
    return run_benchmark(TINY, log=lambda message: None)


def test_every_lane_passes_parity_and_is_timed(tiny_result: dict[str, Any]) -> None:
    (case,) = tiny_result["cases"]
    assert (case["workload"], case["mode"], case["size"], case["batch"]) == (
        "multiply",
        "RGB",
        16,
        3,
    )
    assert case["source_bytes_per_image"] == 2 * 16 * 16 * 3
    assert list(case["lanes"]) == list(ALL_LANES)
    world = {name: case["lanes"][name]["parity"] for name in WORLD_LANES}
    assert world["reference"] == "n/a: no reference kernel for workload multiply"
    assert world["transfer"] == "no kernel (round trip exact)"
    assert world["pyvips"] in ("not installed", "no parity (libvips kernels)")
    for name, lane in case["lanes"].items():
        if name in ("pyvips", "pillow_rs", "reference"):
            continue  # checked above / in test_pgpu_bench_world.py
        if name != "transfer":
            assert lane["parity"] == "ok", (name, lane)
        assert len(lane["windows_s"]) == TINY.repeats
        assert lane["images_per_s_min"] <= lane["images_per_s"] <= lane["images_per_s_max"]
        assert lane["vs_sequential"] == pytest.approx(
            lane["images_per_s"] / case["lanes"]["sequential"]["images_per_s"]
        )
    for name in ("eager", "queued", "resident"):
        lane = case["lanes"][name]
        assert lane["share_of_ceiling"] == pytest.approx(
            lane["images_per_s"] / case["lanes"]["ceiling"]["images_per_s"]
        )
        # Parity batch + timed windows, each of 3 jobs.
        assert lane["executor_stats"]["submitted_jobs"] == 3 * (1 + TINY.repeats)
    assert case["lanes"]["eager"]["executor_stats"]["largest_submission"] == 1
    assert case["lanes"]["resident"]["executor_stats"]["readback_bytes"] == 0


def test_result_names_the_adapter_and_machine(
    tiny_result: dict[str, Any], device: SharedDevice
) -> None:
    assert tiny_result["adapter"]["device"] == device.adapter_info["device"]
    assert tiny_result["adapter"]["adapter_type"] == device.adapter_info["adapter_type"]
    assert tiny_result["machine"]["cpu_count"] >= 1
    cpu_model = tiny_result["machine"]["cpu_model"]
    assert isinstance(cpu_model, str)
    assert cpu_model  # /proc/cpuinfo's model name, platform.processor(), or "unknown"
    assert f", {cpu_model}, {tiny_result['machine']['cpu_count']} CPU cores" in render_markdown(
        tiny_result
    )
    assert tiny_result["machine"]["pool_processes"] == 2
    assert tiny_result["config"]["sizes"] == [16]
    assert tiny_result["config"]["repeats"] == TINY.repeats


def test_sweep_row_per_setting(tiny_result: dict[str, Any]) -> None:
    (row,) = tiny_result["sweep"]
    assert (row["max_jobs"], row["max_in_flight"], row["parity"]) == (2, 1, "ok")
    assert row["executor_stats"]["largest_submission"] <= 2


def test_json_round_trips_and_markdown_has_every_lane(tiny_result: dict[str, Any]) -> None:
    assert json.loads(json.dumps(tiny_result)) == tiny_result
    text = render_markdown(tiny_result)
    assert text.startswith(f"# pillow-gpu benchmark: {tiny_result['adapter']['device']}")
    main_table = text.split("\n## Every lane\n")[1].split("\n## ")[0]
    rows = [
        line for line in main_table.splitlines() if line.startswith("| multiply | RGB | 16^2 | 3 |")
    ]
    assert [row.split(" | ")[4] for row in rows] == list(ALL_LANES)
    assert "## max_jobs x max_in_flight sweep" in text
    assert f"; {TINY.repeats} timed windows per lane (interleaved);" in text
    longer = {**tiny_result, "config": {**tiny_result["config"], "min_seconds": 2.0}}
    assert (
        f"; at least {TINY.repeats} timed windows per lane, more until a case's rounds took 2 s "
        "(at most 64) (interleaved);"
    ) in render_markdown(longer)
    assert "## Executor counters" in text


def test_plot_is_a_png(tiny_result: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "plot.png"
    write_plot(tiny_result, path)
    with PILImage.open(path) as image:
        assert image.format == "PNG"
        assert image.width > 100


def test_bench_command_writes_json_markdown_and_png(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = tmp_path / "results" / "tiny"
    argv = [
        "bench",
        "--workloads=grayscale_invert",
        "--modes=L",
        "--sizes=8",
        "--batches=2",
        "--repeats=1",
        "--lanes=sequential,ceiling,queued",
        "--sweep-max-jobs=",
        f"--output={prefix}",
    ]
    assert main(argv) == 0
    data = json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    assert [case["lanes"]["queued"]["parity"] for case in data["cases"]] == ["ok"]
    assert data["sweep"] == []
    assert "| grayscale_invert | L | 8^2 | 2 | queued |" in prefix.with_suffix(".md").read_text(
        encoding="utf-8"
    )
    assert prefix.with_suffix(".png").stat().st_size > 0
    assert str(prefix.with_suffix(".json")) in capsys.readouterr().out


def test_defaults_depend_on_the_adapter_and_options_override_them() -> None:
    gpu = default_config(adapter_type="DiscreteGPU")
    assert (gpu.sizes, gpu.gpu_bytes) == ((256, 1024, 4096), 8 << 30)
    cpu = default_config(adapter_type="CPU")
    assert cpu.sizes == (256, 1024)
    assert cpu.window_pixels == 1024 * 1024 * 16
    assert (cpu.min_seconds, gpu.min_seconds) == (2.0, 2.0)
    assert default_config(adapter_type="CPU", quick=True).workloads == ("invert_median3",)
    assert default_config(adapter_type="CPU", quick=True).min_seconds == 0.0
    args = build_parser().parse_args(
        ["bench", "--quick", "--sizes=64,128", "--gpu-mib=64", "--min-seconds=0.5"]
    )
    config = config_from_args(args, adapter_type="CPU")
    assert config.sizes == (64, 128)
    assert config.gpu_bytes == 64 << 20
    assert config.min_seconds == 0.5
    assert config.workloads == ("invert_median3",)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workloads": ("nope",)}, "unknown workloads"),
        ({"lanes": ("warp",)}, "lanes"),
        ({"repeats": 0}, "repeats, sizes and batches must be >= 1"),
        ({"min_seconds": -1.0}, "min_seconds must be >= 0"),
        ({"min_seconds": float("nan")}, "min_seconds must be >= 0"),
    ],
    ids=["unknown-workload", "unknown-lane", "zero-repeats", "negative-minimum", "nan-minimum"],
)
def test_config_rejects_invalid_values(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(TINY, **changes)


def test_window_pixel_budget_skips_large_cases(device: SharedDevice) -> None:
    config = dataclasses.replace(
        TINY, sizes=(8, 16), batches=(2,), window_pixels=200, lanes=("sequential",)
    )
    result = run_benchmark(config, log=lambda message: None)
    assert [case["size"] for case in result["cases"]] == [8]
    assert result["skipped"] == [
        {
            "workload": "multiply",
            "mode": "RGB",
            "size": 16,
            "batch": 2,
            "why": "batch x pixels above window_pixels",
        }
    ]


def test_sweep_skips_sizes_whose_largest_batch_is_one(device: SharedDevice) -> None:
    config = dataclasses.replace(TINY, sizes=(8,), batches=(1,), lanes=("ceiling", "queued"))
    result = run_benchmark(config, log=lambda message: None)
    assert [case["lanes"]["queued"]["parity"] for case in result["cases"]] == ["ok"]
    assert result["sweep"] == []


def test_summary_row_per_case_and_the_target_line(tiny_result: dict[str, Any]) -> None:
    from pillow_gpu.bench import render_summary

    text = render_summary(tiny_result)
    (row,) = [line for line in text.splitlines() if line.startswith("| multiply |")]
    queued = tiny_result["cases"][0]["lanes"]["queued"]
    assert row.split(" | ")[6] == f"{queued['images_per_s']:,.1f}"
    # A 16^2 batch of 3 is below the target's batch and size, so no case is counted.
    assert "met in 0 of 0 cases for the `queued` lane" in text
    assert "## Summary (largest batch per case)" in render_markdown(tiny_result)

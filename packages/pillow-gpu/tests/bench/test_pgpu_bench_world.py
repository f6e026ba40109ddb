"""The lanes against the world: reference kernels, the transfer bound, pillow-rs and pyvips.

Reference outputs are compared with live Pillow byte for byte. The pillow-rs tests need an
existing venv with pillow-rs 12.2.3: ``PILLOW_GPU_BENCH_PILLOW_RS_VENV``, else the repository's
``.venv-pillow-rs`` that ``tools/bootstrap.sh`` makes (tests never create one); without either
they are skipped with that reason. No speed is asserted.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu.bench import BenchConfig, render_markdown, run_benchmark
from pillow_gpu.bench._cli import config_from_args
from pillow_gpu.bench._pillow_rs import PillowRsLane, PillowRsUnavailable, mismatch, venv_python
from pillow_gpu.bench._reference import (
    ReferenceLane,
    ReferenceUnavailable,
    box_blur_weights,
    gaussian_box_radius,
)
from pillow_gpu.bench._transfer import TransferLane
from pillow_gpu.bench._workloads import WORKLOADS, job_sources, make_sources, source_count
from pillow_gpu.bench._world import paired_ratio
from pillow_gpu.cli import build_parser
from pillow_gpu.gpu._device import SharedDevice

_BOOTSTRAPPED = Path(__file__).resolve().parents[4] / ".venv-pillow-rs"
_VENV = os.environ.get("PILLOW_GPU_BENCH_PILLOW_RS_VENV") or (
    str(_BOOTSTRAPPED) if venv_python(_BOOTSTRAPPED).exists() else ""
)
needs_pillow_rs = pytest.mark.skipif(
    not (_VENV and venv_python(Path(_VENV)).exists()),
    reason="no venv with pillow-rs 12.2.3: run tools/bootstrap.sh (it makes .venv-pillow-rs) "
    "or set PILLOW_GPU_BENCH_PILLOW_RS_VENV",
)

REFERENCE_CASES = [
    (name, mode, size)
    for name in ("invert_median3", "chops_invert", "gaussian_blur2")
    for mode in ("L", "RGB", "RGBA")
    for size in ((16, 12), (20, 9), (13, 7))
    if not (mode == "L" and size[0] % 4 and name != "chops_invert")
]


def _reference(name: str, mode: str, sources: list[PILImage.Image], batch: int) -> list[Any]:
    workload = WORKLOADS[name]
    return [workload.pillow(mode, job_sources(workload, sources, i)) for i in range(batch)]


def _sources(name: str, mode: str, size: tuple[int, int], batch: int) -> list[PILImage.Image]:
    count = source_count(WORKLOADS[name], batch)
    return [image.resize(size) for image in make_sources(mode, max(size), count, seed=5)]


@pytest.mark.parametrize(
    ("name", "mode", "size"),
    REFERENCE_CASES,
    ids=[f"{n}-{m}-{w}x{h}" for n, m, (w, h) in REFERENCE_CASES],
)
def test_reference_lane_is_exact(
    name: str, mode: str, size: tuple[int, int], device: SharedDevice
) -> None:
    sources = _sources(name, mode, size, 3)
    lane = ReferenceLane(WORKLOADS[name], mode, sources, batch=3, byte_budget=1 << 30)
    try:
        images = lane.images()
    finally:
        lane.close()
    want = _reference(name, mode, sources, 3)
    assert [image.tobytes() for image in images] == [image.tobytes() for image in want]
    assert lane.submits_per_window == 1


def test_reference_lane_splits_a_batch_over_its_budget(device: SharedDevice) -> None:
    sources = _sources("gaussian_blur2", "RGB", (16, 16), 5)
    lane = ReferenceLane(WORKLOADS["gaussian_blur2"], "RGB", sources, batch=5, byte_budget=4096)
    try:
        assert (lane.slots, lane.submits_per_window, lane.dispatches_per_chunk) == (2, 3, 6)
        images = lane.images()
    finally:
        lane.close()
    want = _reference("gaussian_blur2", "RGB", sources, 5)
    assert [image.tobytes() for image in images] == [image.tobytes() for image in want]


@pytest.mark.parametrize(
    ("name", "mode", "why"),
    [
        ("multiply", "RGB", "no reference kernel for workload multiply"),
        ("invert_median3", "L", "width % 4 must be 0"),
        ("gaussian_blur2", "LA", "no reference kernel for mode LA"),
    ],
    ids=["no-kernel", "L-width-not-multiple-of-4", "mode-LA"],
)
def test_reference_lane_refuses_what_it_does_not_implement(name: str, mode: str, why: str) -> None:
    sources = _sources(name, mode, (13, 5), 1)
    with pytest.raises(ReferenceUnavailable, match=why):
        ReferenceLane(WORKLOADS[name], mode, sources, batch=1, byte_budget=1 << 30)


@pytest.mark.parametrize(
    ("radius", "box"), [(1.7, 1.1465423), (3.25, 2.6939163)], ids=["r1.7", "r3.25"]
)
def test_gaussian_box_radius_matches_pillow_notes(radius: float, box: float) -> None:
    assert gaussian_box_radius(radius) == pytest.approx(box, abs=1e-6)


def test_box_blur_weights_sum_to_one_in_fixed_point() -> None:
    whole, ww, fw = box_blur_weights(gaussian_box_radius(2.0))
    assert whole == 1
    assert (2 * whole + 1) * ww + 2 * fw in (1 << 24, (1 << 24) - 1)


@pytest.mark.parametrize(
    ("name", "mode", "up", "down"),
    [
        ("invert_median3", "L", 16 * 8, 16 * 8),
        ("grayscale_invert", "RGB", 4 * 16 * 8, 16 * 8),
        ("multiply", "RGBA", 2 * 4 * 16 * 8, 4 * 16 * 8),
        ("chops_invert", "L", 13 * 8, 13 * 8),
    ],
    ids=["L-same-size", "RGB-to-L", "two-inputs", "L-odd-bytes"],
)
def test_transfer_lane_moves_stored_bytes_and_round_trips(
    name: str, mode: str, up: int, down: int, device: SharedDevice
) -> None:
    width = 13 if name == "chops_invert" else 16
    sources = _sources(name, mode, (width, 8), 3)
    reference = _reference(name, mode, sources, 3)
    lane = TransferLane(WORKLOADS[name], sources, reference, batch=3, byte_budget=1 << 30)
    try:
        assert (lane.upload_bytes_per_image, lane.download_bytes_per_image) == (up, down)
        assert lane.check() == "no kernel (round trip exact)"
        assert lane.window()() == 3
    finally:
        lane.close()


def test_paired_ratio_cancels_drift_between_rounds() -> None:
    # The machine slows 3x in rounds 2 and 4; each round ours takes twice their time.
    theirs = [1.0, 3.0, 1.0, 3.0, 1.0]
    ours = [2.0, 6.0, 2.0, 6.0, 2.0]
    assert paired_ratio(ours, theirs) == pytest.approx(0.5)
    # Their slow rounds fell on our fast ones: the medians' ratio reads 3 / 2 = 1.5, the
    # rounds 0.5, 1.5, 1.5, 0.5 and 1/6.
    assert paired_ratio([2.0, 2.0, 2.0, 6.0, 6.0], [1.0, 3.0, 3.0, 3.0, 1.0]) == 0.5
    assert paired_ratio(ours, theirs[:4]) is None  # a lane dropped a round
    assert paired_ratio([], []) is None


def test_mismatch_counts_differing_bytes() -> None:
    want = [PILImage.new("L", (2, 2), 7), PILImage.new("L", (2, 2), 9)]
    assert mismatch([bytes([7] * 4), bytes([9] * 4)], want) == "exact"
    assert mismatch([bytes([7, 8, 7, 8]), bytes([9] * 4)], want) == (
        "MISMATCH 2 bytes (1 of 2 outputs)"
    )
    assert mismatch([None, bytes([9] * 3)], want) == "MISMATCH 5 bytes (2 of 2 outputs)"


TINY = BenchConfig(
    workloads=("invert_median3",),
    modes=("L",),
    sizes=(16,),
    batches=(2,),
    repeats=1,
    lanes=("sequential", "pyvips", "pillow_rs", "reference", "transfer", "ceiling", "queued"),
    sweep_max_jobs=(),
    sweep_max_in_flight=(),
    pillow_rs_venv=_VENV,
)


@pytest.fixture(scope="module")
def tiny_result(device: SharedDevice) -> dict[str, Any]:
    return run_benchmark(TINY, log=lambda message: None)


def test_tiny_run_reports_the_world_lanes(tiny_result: dict[str, Any]) -> None:
    (case,) = tiny_result["cases"]
    lanes = case["lanes"]
    assert list(lanes) == list(TINY.lanes)
    assert lanes["reference"]["parity"] == "exact"
    assert lanes["reference"]["dispatches_per_chunk"] == 1
    assert lanes["transfer"]["parity"] == "no kernel (round trip exact)"
    assert lanes["transfer"]["upload_bytes_per_image"] == 16 * 16
    assert lanes["pyvips"]["parity"] in ("not installed", "no parity (libvips kernels)")
    queued = lanes["queued"]
    for other, key in (("reference", "vs_reference"), ("transfer", "share_of_transfer")):
        assert len(lanes[other]["windows_s"]) == TINY.repeats
        assert queued[key] == pytest.approx(queued["images_per_s"] / lanes[other]["images_per_s"])
    (ours,), (theirs,) = queued["windows_s"], lanes["reference"]["windows_s"]
    assert queued["vs_reference_paired"] == pytest.approx(theirs / ours)
    cost = queued["host_cost"]
    assert cost["jobs"] == 2
    assert cost["plan_function"] in ("plan_cached", "plan_graph")
    for step in ("graph_build", "plan", "allocate", "encode", "build_result"):
        assert cost[f"{step}_us_per_job"] > 0, step
    assert cost["host_steps_us_per_job"] <= cost["wall_us_per_job"]
    assert "not_measured" not in cost


def test_pillow_rs_lane_without_a_venv_says_why(device: SharedDevice) -> None:
    config = dataclasses.replace(TINY, lanes=("pillow_rs",), pillow_rs_venv="")
    result = run_benchmark(config, log=lambda message: None)
    (case,) = result["cases"]
    assert case["lanes"]["pillow_rs"] == {
        "parity": "unavailable: no venv given (pass --pillow-rs-venv PATH)"
    }
    missing = dataclasses.replace(config, pillow_rs_venv="/nonexistent/venv")
    (case,) = run_benchmark(missing, log=lambda message: None)["cases"]
    assert case["lanes"]["pillow_rs"]["parity"].startswith("unavailable: no interpreter at")


def test_pillow_rs_worker_ignores_pythonpath_and_names_a_pillow_that_is_not_the_peer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A PYTHONPATH whose PIL comes first (the GPU machine's check installs Pillow on one) must
    # not reach the worker; this interpreter's own PIL is Pillow, which the worker names.
    shadow = tmp_path / "shadow" / "PIL"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('the shadowing PIL was imported')\n")
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    sources = _sources("chops_invert", "L", (8, 8), 1)
    with pytest.raises(PillowRsUnavailable) as raised:
        PillowRsLane(
            WORKLOADS["chops_invert"],
            "L",
            sources,
            batch=1,
            executor={"max_jobs": 1, "max_in_flight": 1},
            python=Path(sys.executable),
        )
    message = str(raised.value)
    assert "is not pillow-rs" in message
    assert f"version {PILImage.__version__} at" in message
    assert "shadowing" not in message


def test_json_and_markdown_carry_the_world_lanes(tiny_result: dict[str, Any]) -> None:
    assert tiny_result["schema"] == 2
    assert json.loads(json.dumps(tiny_result)) == tiny_result
    assert set(tiny_result["pillow_rs"]) == {"python", "why"}
    text = render_markdown(tiny_result)
    world = text.split("## Against pillow-rs, the reference kernels and the transfer bound")[1]
    world = world.split("\n## ")[0]
    (row,) = [line for line in world.splitlines() if line.startswith("| invert_median3 | L |")]
    assert "[exact]" in row
    assert "MB/s moved" in row
    assert "## Host cost per job" in text


def test_cases_option_replaces_the_matrix_and_venv_option_creates() -> None:
    args = build_parser().parse_args(
        ["bench", "--cases=invert_median3:L:256:64,gaussian_blur2:RGB:512:16", "--pillow-rs-venv=v"]
    )
    config = config_from_args(args, adapter_type="CPU")
    assert config.cases == (("invert_median3", "L", 256, 64), ("gaussian_blur2", "RGB", 512, 16))
    assert (config.pillow_rs_venv, config.create_pillow_rs_venv) == ("v", True)
    with pytest.raises(ValueError, match="unknown workloads"):
        dataclasses.replace(config, cases=(("nope", "L", 8, 1),))


@needs_pillow_rs
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_pillow_rs_lane_is_exact_on_invert_median3(mode: str, tiny_result: dict[str, Any]) -> None:
    sources = _sources("invert_median3", mode, (16, 16), 2)
    lane = PillowRsLane(
        WORKLOADS["invert_median3"],
        mode,
        sources,
        batch=2,
        executor={"max_jobs": 8, "max_in_flight": 2, "gpu_bytes": 1 << 28, "host_bytes": 1 << 28},
        python=venv_python(Path(_VENV)),
    )
    try:
        assert lane.check(_reference("invert_median3", mode, sources, 2)) == "exact"
        assert lane.window()() == 2
        assert lane.stats()["submitted_jobs"] == 4
    finally:
        lane.close()
    if mode == "L":
        assert tiny_result["cases"][0]["lanes"]["pillow_rs"]["parity"] == "exact"


@needs_pillow_rs
def test_pillow_rs_lane_reports_a_chain_it_cannot_run() -> None:
    sources = _sources("thumbnail_bicubic", "L", (16, 16), 1)
    lane = PillowRsLane(
        WORKLOADS["thumbnail_bicubic"],
        "L",
        sources,
        batch=1,
        executor={"max_jobs": 8, "max_in_flight": 2, "gpu_bytes": 1 << 28, "host_bytes": 1 << 28},
        python=venv_python(Path(_VENV)),
    )
    try:
        with pytest.raises(PillowRsUnavailable, match="could not run the chain"):
            lane.check(_reference("thumbnail_bicubic", "L", sources, 1))
    finally:
        lane.close()

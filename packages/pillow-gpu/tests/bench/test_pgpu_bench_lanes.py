"""Benchmark lanes against live Pillow: workloads, the ceiling lane, the Pillow pool."""

from __future__ import annotations

import pytest
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.bench._ceiling import CeilingLane
from pillow_gpu.bench._workloads import WORKLOADS, job_sources, make_sources, source_count
from pillow_gpu.gpu._device import SharedDevice

MODES = ("L", "RGB", "RGBA")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(WORKLOADS))
def test_lazy_workload_records_the_pillow_chain(name: str, mode: str) -> None:
    workload = WORKLOADS[name]
    sources = make_sources(mode, 11, source_count(workload, 1), seed=7)
    leaves = [Image.from_pil(source) for source in sources[: workload.inputs]]
    assert_image_equal(
        workload.lazy(mode, leaves).to_pil(), workload.pillow(mode, sources[: workload.inputs])
    )


def test_sources_are_deterministic_and_distinct() -> None:
    first = make_sources("RGB", 8, 3, seed=1)
    again = make_sources("RGB", 8, 3, seed=1)
    assert [im.tobytes() for im in first] == [im.tobytes() for im in again]
    assert len({im.tobytes() for im in first}) == 3


def test_job_sources_cycle_through_the_pool() -> None:
    workload = WORKLOADS["multiply"]
    sources = make_sources("L", 4, 3)
    assert [job_sources(workload, sources, i) for i in range(2)] == [
        [sources[0], sources[1]],
        [sources[2], sources[0]],
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(WORKLOADS))
def test_ceiling_lane_matches_pillow(name: str, mode: str, device: SharedDevice) -> None:
    workload = WORKLOADS[name]
    sources = make_sources(mode, 13, source_count(workload, 3), seed=2)
    lane = CeilingLane(workload, mode, sources, batch=3, byte_budget=1 << 30)
    try:
        assert (lane.slots, lane.submits_per_window) == (3, 1)
        for index, image in enumerate(lane.images()):
            assert_image_equal(image, workload.pillow(mode, job_sources(workload, sources, index)))
    finally:
        lane.close()


def test_ceiling_lane_splits_a_batch_over_its_byte_budget(device: SharedDevice) -> None:
    workload = WORKLOADS["invert_median3"]
    sources = make_sources("RGB", 16, 4, seed=3)
    probe = CeilingLane(workload, "RGB", sources, batch=1, byte_budget=1 << 30)
    per_job = probe.plan.gpu_bytes
    probe.close()
    lane = CeilingLane(workload, "RGB", sources, batch=5, byte_budget=2 * per_job)
    try:
        assert (lane.slots, lane.submits_per_window) == (2, 3)
        images = lane.images()
        assert len(images) == 5
        for index, image in enumerate(images):
            assert_image_equal(image, workload.pillow("RGB", job_sources(workload, sources, index)))
    finally:
        lane.close()

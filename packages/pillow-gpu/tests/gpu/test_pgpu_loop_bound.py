"""Adapters that end shader loops early: llvmpipe's per-invocation loop budget.

llvmpipe (Mesa's lavapipe, the adapter CI runs on) stops every loop of an invocation once
65,535 iterations were spent over all of them together, so a kernel that loops longer skips
work silently. The planner refuses such dispatches where the device's limits carry the bound.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Limit
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import LLVMPIPE_LOOP_STEPS, DeviceLimits, SharedDevice, is_llvmpipe

R = PILImage.Resampling

_LOOPS = """
@group(0) @binding(0) var<uniform> n: vec4<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 2>;
@compute @workgroup_size(1)
fn main() {
    var first = 0u;
    for (var t = 0u; t < n.x; t++) { first = first + 1u; }
    var second = 0u;
    for (var t = 0u; t < n.y; t++) { second = second + 1u; }
    out[0] = first;
    out[1] = second;
}
"""


def _loop_counts(device: SharedDevice, first: int, second: int) -> tuple[int, int]:
    import wgpu  # type: ignore[import-untyped]

    gpu = device.device
    usage = wgpu.BufferUsage
    module = gpu.create_shader_module(code=_LOOPS)
    pipeline = gpu.create_compute_pipeline(
        layout="auto", compute={"module": module, "entry_point": "main"}
    )
    counts = np.array([first, second, 0, 0], dtype=np.uint32).tobytes()
    uniform = gpu.create_buffer_with_data(data=counts, usage=usage.UNIFORM)
    out = gpu.create_buffer(size=8, usage=usage.STORAGE | usage.COPY_SRC)
    group = gpu.create_bind_group(
        layout=pipeline.get_bind_group_layout(0),
        entries=[
            {"binding": 0, "resource": {"buffer": uniform}},
            {"binding": 1, "resource": {"buffer": out}},
        ],
    )
    encoder = gpu.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, group)
    compute.dispatch_workgroups(1)
    compute.end()
    device.queue.submit([encoder.finish()])
    ran = np.frombuffer(device.queue.read_buffer(out), dtype=np.uint32)
    return int(ran[0]), int(ran[1])


def test_the_device_limits_carry_the_adapters_loop_bound(device: SharedDevice) -> None:
    expected = LLVMPIPE_LOOP_STEPS if is_llvmpipe(device.adapter_info) else None
    assert device.limits.max_loop_steps == expected


def test_llvmpipe_spends_one_loop_budget_over_all_loops(device: SharedDevice) -> None:
    if not is_llvmpipe(device.adapter_info):
        pytest.skip("the loop budget is llvmpipe's; this adapter runs loops to the end")
    assert _loop_counts(device, 40_000, 10_000) == (40_000, 10_000)
    assert _loop_counts(device, 100_000, 0) == (LLVMPIPE_LOOP_STEPS, 0)
    first, second = _loop_counts(device, 40_000, 40_000)
    assert first == 40_000
    assert second < 40_000  # the rest of the budget, less the loop tests it spent


BOUNDED = DeviceLimits(
    max_storage_buffer_binding_size=1 << 30,
    max_buffer_size=1 << 30,
    max_compute_workgroups_per_dimension=65535,
    max_uniform_buffer_binding_size=65536,
    max_loop_steps=LLVMPIPE_LOOP_STEPS,
)
UNBOUNDED = DeviceLimits(
    max_storage_buffer_binding_size=1 << 30,
    max_buffer_size=1 << 30,
    max_compute_workgroups_per_dimension=65535,
    max_uniform_buffer_binding_size=65536,
)

# (graph, whether its longest kernel loop fits the budget): reduce loops over a block row
# (blocks of more than SPLIT_BLOCK pixels are summed row by row), a long-window resample over
# one output's taps.
GRAPHS = {
    "reduce-255": (lambda: Image.new("L", (600, 600)).reduce(255), True),
    "reduce-256": (lambda: Image.new("L", (600, 600)).reduce(256), True),
    "reduce-300x200": (lambda: Image.new("RGB", (600, 600)).reduce((300, 200)), True),
    "reduce-65535x1": (lambda: Image.new("L", (65_535, 2)).reduce((65_535, 1)), True),
    "reduce-70000x1": (lambda: Image.new("L", (70_000, 2)).reduce((70_000, 1)), False),
    "resample-50000-taps": (
        lambda: Image.new("RGB", (3, 50_000)).resize((3, 5), R.LANCZOS),
        True,
    ),
    "resample-70000-taps": (
        lambda: Image.new("RGB", (3, 70_000)).resize((3, 5), R.LANCZOS),
        False,
    ),
}


@pytest.mark.parametrize(("build", "fits"), list(GRAPHS.values()), ids=list(GRAPHS))
def test_dispatches_looping_past_the_bound_are_refused(build: object, fits: bool) -> None:
    graph = build()  # type: ignore[operator]
    plan_graph(graph, limits=UNBOUNDED)  # no bound known: planned
    if fits:
        plan_graph(graph, limits=BOUNDED)
        return
    with pytest.raises(Limit, match="ends shader loops early") as caught:
        plan_graph(graph, limits=BOUNDED)
    assert caught.value.stage == "admission"
    assert "loop steps per invocation" in str(caught.value)


@pytest.mark.parametrize("name", ["reduce-255", "resample-50000-taps"])
def test_graphs_just_inside_the_bound_match_pillow(name: str) -> None:
    rng = np.random.default_rng(7)
    if name == "reduce-255":
        source = PILImage.fromarray(rng.integers(0, 256, (600, 600), dtype=np.uint8), "L")
        expected = source.reduce(255)
        lazy = Image.from_pil(source).reduce(255)
    else:
        source = PILImage.fromarray(rng.integers(0, 256, (50_000, 3, 3), dtype=np.uint8), "RGB")
        expected = source.resize((3, 5), R.LANCZOS)
        lazy = Image.from_pil(source).resize((3, 5), R.LANCZOS)
    assert_image_equal(evaluate(lazy), expected)

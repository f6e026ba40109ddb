"""Every WGSL kernel compiles on the adapter and has its Python dispatcher beside it."""

from __future__ import annotations

from importlib import resources

import pytest
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._device import shader_source as device_source
from pillow_gpu.gpu._program import Program, parse_specialized, specialized

KERNELS = sorted(
    entry.name.removesuffix(".wgsl")
    for entry in resources.files("pillow_gpu.gpu.kernels").iterdir()
    if entry.name.endswith(".wgsl")
)


def test_kernel_inventory() -> None:
    assert KERNELS, "no .wgsl kernels found beside pillow_gpu.gpu.kernels"
    python = {
        entry.name.removesuffix(".py")
        for entry in resources.files("pillow_gpu.gpu.kernels").iterdir()
        if entry.name.endswith(".py")
    }
    assert set(KERNELS) <= python


@pytest.mark.parametrize("name", KERNELS)
def test_shader_compiles_into_a_pipeline(device: SharedDevice, name: str) -> None:
    pipeline = device.pipeline(name)
    assert pipeline is device.pipeline(name)  # cached per process
    assert pipeline.get_bind_group_layout(0) is not None


#: Kernels with ``override`` constants, and every value their dispatchers pass.
SPECIALISED = {
    "rank": ("PACKING", (0, 1, 2, 3)),
    "rank_minmax": ("PACKING", (0, 1, 2, 3)),
    "rank_sort9": ("PACKING", (0, 1, 2, 3)),
    "rank_select": ("WINDOW", (5, 7)),
    "unpack": ("KIND", (0, 1, 2, 3, 4)),
    "chops": ("OP", tuple(range(13))),
    "resample": ("AXIS", (0, 1)),
    "resample_long": ("AXIS", (0, 1)),
    "resample_wide": ("KIND", (0, 1, 2)),  # AXIS alike
    "generic_transform": ("KIND", (1, 2, 3, 4)),  # FILTER (0, 2, 3) and MAP (0, 1) alike
    "reduce": ("STAGE", (0, 1, 2)),
    "interleave_l": ("TO_ROWS", (0, 1)),
    "pad_l": ("TO_FLAT", (0, 1)),
    "to_indexed": ("KIND", (0, 1, 2)),
    "convert": ("SEL0", tuple(range(14))),  # SEL1..SEL3 and KEYED alike
    "pack_l": ("BAND", (0, 1, 2, 3, 4)),
}


@pytest.mark.parametrize("name", list(SPECIALISED))
def test_each_specialisation_is_its_own_pipeline(device: SharedDevice, name: str) -> None:
    constant, values = SPECIALISED[name]
    names = [specialized(name, {constant: value}) for value in values]
    assert [parse_specialized(spelt) for spelt in names] == [
        (name, {constant: value}) for value in values
    ]
    pipelines = [device.pipeline(spelt) for spelt in names]
    assert len({id(pipeline) for pipeline in pipelines}) == len(values)
    assert specialized(name, None) == name
    assert f"override {constant}" in device_source(name)


def test_dispatch_names_its_specialised_pipeline() -> None:
    program = Program()
    src, dst = program.image((4, 4)), program.image((4, 4))
    program.dispatch(
        "unpack",
        words=(16, 0),
        bindings=(src, dst),
        grid=(16, 1),
        invocation_work=1,
        linear=True,
        constants={"KIND": 3},
    )
    (dispatch,) = program.dispatches
    assert (dispatch.shader, dispatch.pipeline) == ("unpack", "unpack?KIND=3")


@pytest.mark.parametrize("name", KERNELS)
def test_includes_are_spliced_in(name: str) -> None:
    source = device_source(name)
    assert not [line for line in source.splitlines() if line.startswith("//!include")]
    assert "@compute" in source

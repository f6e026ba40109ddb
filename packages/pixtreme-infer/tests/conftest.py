"""Fixtures shared by pixtreme-infer's tests: small valid contracts to vary from."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pixtreme.infer.contracts import (
    Exact,
    FrameContract,
    GpuArrayParamContract,
    ShapeProfile,
    StateFootprint,
    StatelessFamilyContract,
    StatelessModuleContract,
    TemporalFamilyContract,
    TemporalModuleContract,
    UnconstrainedWithReference,
)


def make_rgb_contract(**overrides: object) -> FrameContract:
    fields: dict[str, object] = {
        "channels": Exact(value="RGB"),
        "colorspace": Exact(value="sRGB"),
        "gamma": UnconstrainedWithReference(reference="sRGB"),
        "matrix": Exact(value=None),
        "dtype": Exact(value="float32"),
    }
    fields.update(overrides)
    return FrameContract(**fields)  # type: ignore[arg-type]


@pytest.fixture
def rgb_contract() -> FrameContract:
    return make_rgb_contract()


@pytest.fixture(name="make_rgb_contract")
def make_rgb_contract_fixture() -> Callable[..., FrameContract]:
    """A FrameContract builder: RGB / sRGB / float32 with the given fields replaced."""
    return make_rgb_contract


@pytest.fixture
def strength_param() -> GpuArrayParamContract:
    return GpuArrayParamContract(name="strength", shape=("H", "W"), dtype="float32", unit="1")


@pytest.fixture
def stateless_contract(
    rgb_contract: FrameContract, strength_param: GpuArrayParamContract
) -> StatelessModuleContract:
    return StatelessModuleContract(
        input_frame=rgb_contract,
        output_frame=rgb_contract,
        input_hw=(32, 48),
        spatial_scale=2,
        params=(strength_param,),
    )


@pytest.fixture
def temporal_contract(rgb_contract: FrameContract) -> TemporalModuleContract:
    return TemporalModuleContract(
        input_frame=rgb_contract,
        output_frame=rgb_contract,
        input_hw=(32, 48),
        startup_frames=2,
        state_footprint=StateFootprint(amount=32 * 48 * 12),
    )


@pytest.fixture
def profile() -> ShapeProfile:
    return ShapeProfile(min_hw=(16, 16), opt_hw=(64, 64), max_hw=(256, 256))


@pytest.fixture
def stateless_family(rgb_contract: FrameContract, profile: ShapeProfile) -> StatelessFamilyContract:
    return StatelessFamilyContract(
        architecture="example",
        input_frame=rgb_contract,
        output_frame=rgb_contract,
        shape_profile=profile,
        precisions=("fp32", "fp16"),
        spatial_scale=2,
    )


@pytest.fixture
def temporal_family(rgb_contract: FrameContract, profile: ShapeProfile) -> TemporalFamilyContract:
    return TemporalFamilyContract(
        architecture="example",
        input_frame=rgb_contract,
        output_frame=rgb_contract,
        shape_profile=profile,
        precisions=("fp32",),
        startup_frames=2,
        state_footprint_per_pixel=12,
    )

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
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalModuleContract,
    TemporalOpenContract,
    UnconstrainedWithReference,
)


def make_rgb_contract(**overrides: object) -> FrameContract:
    """RGB / sRGB / float32 with the given fields replaced (gamma is unconstrained)."""
    fields: dict[str, object] = {
        "channels": Exact(("R", "G", "B")),
        "colorspace": Exact("sRGB"),
        "gamma": UnconstrainedWithReference("sRGB"),
        "matrix": Exact(None),
        "dtype": Exact("float32"),
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
    return GpuArrayParamContract("strength", ("H", "W"), "float32", "1")


@pytest.fixture
def stateless_contract(
    rgb_contract: FrameContract, strength_param: GpuArrayParamContract
) -> StatelessModuleContract:
    return StatelessModuleContract(rgb_contract, rgb_contract, (strength_param,), 2)


@pytest.fixture
def temporal_contract(rgb_contract: FrameContract) -> TemporalModuleContract[StateFootprint]:
    return TemporalModuleContract(rgb_contract, rgb_contract, (), 1, 2, StateFootprint(4608))


@pytest.fixture
def profile() -> ShapeProfile:
    return ShapeProfile((16, 16), (64, 64), (256, 256))


@pytest.fixture
def stateless_family(
    rgb_contract: FrameContract, strength_param: GpuArrayParamContract
) -> StatelessFamilyContract:
    return StatelessFamilyContract(rgb_contract, rgb_contract, (strength_param,))


@pytest.fixture
def temporal_family(rgb_contract: FrameContract) -> TemporalFamilyContract:
    return TemporalFamilyContract(rgb_contract, rgb_contract, (), 2)


@pytest.fixture
def stateless_open(stateless_family: StatelessFamilyContract) -> StatelessOpenContract[str]:
    return StatelessOpenContract(stateless_family, "weights-a", "fp32", (32, 48), 2)


@pytest.fixture
def temporal_open(temporal_family: TemporalFamilyContract) -> TemporalOpenContract[str]:
    return TemporalOpenContract(
        temporal_family, "weights-b", "fp16", (32, 48), 1, StateFootprint(32 * 48 * 12)
    )

"""contracts: Frame, module, family and open contracts validate and derive as published."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pixtreme.infer import contracts
from pixtreme.infer.contracts import (
    CHECKPOINT_CONTAINERS,
    PRECISIONS,
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
    parse_checkpoint_container,
    parse_precision,
    validate_call_params,
)
from pixtreme.infer.errors import ContractError

from .conftest import make_rgb_contract

pytestmark = pytest.mark.req("spec.core.contracts-without-architecture")


def test_vocabularies() -> None:
    assert PRECISIONS == ("fp32", "fp16", "int8")
    assert CHECKPOINT_CONTAINERS == ("bare", "params", "params_ema", "params-ema")
    assert parse_precision("fp16") == "fp16"
    assert parse_checkpoint_container("params-ema") == "params-ema"


@pytest.mark.parametrize("value", ["FP32", "bf16", 32, None], ids=repr)
def test_parse_precision_rejects(value: object) -> None:
    with pytest.raises(ContractError, match=r"how=pass one of \['fp32', 'fp16', 'int8'\]"):
        parse_precision(value)


@pytest.mark.parametrize("value", ["ema", "", None], ids=repr)
def test_parse_checkpoint_container_rejects(value: object) -> None:
    with pytest.raises(ContractError, match="observed container="):
        parse_checkpoint_container(value)


def test_frame_field_wrappers_are_positional_and_frozen() -> None:
    assert Exact(("R", "G", "B")).value == ("R", "G", "B")
    assert UnconstrainedWithReference("sRGB").reference == "sRGB"
    with pytest.raises(dataclasses.FrozenInstanceError):
        Exact(1).value = 2  # type: ignore[misc]


@pytest.mark.parametrize("field", ["channels", "colorspace", "gamma", "matrix", "dtype"])
def test_frame_contract_rejects_unwrapped_fields(field: str) -> None:
    with pytest.raises(ContractError, match=rf"observed field='{field}'") as caught:
        make_rgb_contract(**{field: "raw"})
    assert isinstance(caught.value, ValueError)
    assert "Exact('raw')" in str(caught.value)


def test_frame_contract_keeps_values_as_given() -> None:
    contract = FrameContract(
        Exact("RGB"),
        UnconstrainedWithReference("sRGB"),
        Exact("sRGB"),
        Exact(None),
        Exact("float16"),
    )
    assert contract.channels == Exact("RGB")
    assert contract == FrameContract(
        Exact("RGB"),
        UnconstrainedWithReference("sRGB"),
        Exact("sRGB"),
        Exact(None),
        Exact("float16"),
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(("1x", ("H",), "float32", "1"), "must be a Python identifier", id="name"),
        pytest.param(("frame", ("H",), "float32", "1"), "reserved", id="reserved-frame"),
        pytest.param(("reset", ("H",), "float32", "1"), "reserved", id="reserved-reset"),
        pytest.param(("mask", (0,), "float32", "1"), "positive ints", id="zero-dim"),
        pytest.param(("mask", (True,), "float32", "1"), "positive ints", id="bool-dim"),
        pytest.param(("mask", ("",), "float32", "1"), "positive ints", id="empty-symbol"),
        pytest.param(("mask", ["H"], "float32", "1"), "positive ints", id="list-shape"),
        pytest.param(("mask", ("H",), " ", "1"), "dtype must be", id="blank-dtype"),
        pytest.param(("mask", ("H",), "float32", ""), "unit must be", id="empty-unit"),
    ],
)
def test_gpu_array_param_rejects(arguments: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ContractError, match=message):
        GpuArrayParamContract(*arguments)


def test_gpu_array_param_accepts_empty_and_mixed_shapes() -> None:
    assert GpuArrayParamContract("scalar", (), "float32", "1").shape == ()
    assert GpuArrayParamContract("mv", (2, "H", "W"), "float32", "pixels").shape == (2, "H", "W")


def test_module_contracts_fix_their_kind(
    stateless_contract: StatelessModuleContract,
    temporal_contract: TemporalModuleContract[StateFootprint],
) -> None:
    assert stateless_contract.temporal is False
    assert temporal_contract.temporal is True
    assert temporal_contract.reset_control == "reset"
    assert [f.name for f in dataclasses.fields(TemporalModuleContract) if not f.init] == [
        "temporal",
        "reset_control",
    ]


@pytest.mark.parametrize("scale", [0, -1, True, 1.5], ids=repr)
def test_module_contract_rejects_scale(rgb_contract: FrameContract, scale: object) -> None:
    with pytest.raises(ContractError, match="scale must be a positive integer"):
        StatelessModuleContract(rgb_contract, rgb_contract, (), scale)  # type: ignore[arg-type]


def test_params_must_be_a_tuple_of_unique_declarations(
    rgb_contract: FrameContract, strength_param: GpuArrayParamContract
) -> None:
    with pytest.raises(ContractError, match="tuple of GpuArrayParamContract"):
        StatelessFamilyContract(rgb_contract, rgb_contract, [strength_param])  # type: ignore[arg-type]
    with pytest.raises(ContractError, match="repeated=\\['strength'\\]"):
        StatelessFamilyContract(rgb_contract, rgb_contract, (strength_param, strength_param))


@pytest.mark.parametrize("frames", [-1, True, "2"], ids=repr)
def test_startup_frames_must_be_non_negative(rgb_contract: FrameContract, frames: object) -> None:
    with pytest.raises(ContractError, match="startup_frames must be a non-negative integer"):
        TemporalFamilyContract(rgb_contract, rgb_contract, (), frames)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("amount", "unit"), [(0, "bytes"), (-4, "bytes"), (True, "bytes"), (4, "bits")], ids=repr
)
def test_state_footprint_rejects(amount: object, unit: object) -> None:
    with pytest.raises(ContractError):
        StateFootprint(amount, unit)  # type: ignore[arg-type]


def test_open_contracts_derive_module_contracts(
    stateless_open: StatelessOpenContract[str], temporal_open: TemporalOpenContract[str]
) -> None:
    stateless = stateless_open.module_contract
    assert stateless == StatelessModuleContract(
        stateless_open.family_contract.input_frame,
        stateless_open.family_contract.output_frame,
        stateless_open.family_contract.params,
        2,
    )
    temporal = temporal_open.module_contract
    assert temporal.startup_frames == 2
    assert temporal.state_footprint == StateFootprint(32 * 48 * 12)
    assert temporal is not temporal_open.module_contract  # a fresh snapshot each time


@pytest.mark.parametrize("input_hw", [(0, 4), (4,), [4, 4], (4, True), (4, 4.0)], ids=repr)
def test_open_contract_rejects_input_hw(
    stateless_family: StatelessFamilyContract, input_hw: object
) -> None:
    with pytest.raises(ContractError, match="input_hw must be two positive integers"):
        StatelessOpenContract(stateless_family, "a", "fp32", input_hw, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bounds", "message"),
    [
        pytest.param(((1, 1), (2, 2), (3, 3)), None, id="ordered"),
        pytest.param(((4, 1), (2, 2), (3, 3)), r"invalid axes=\['H'\]", id="min-above-opt"),
        pytest.param(((0, 0), (2, 2), (3, 3)), r"invalid axes=\['H', 'W'\]", id="zero"),
        pytest.param(((1, 1), (2, 5), (3, 3)), r"invalid axes=\['W'\]", id="opt-above-max"),
        pytest.param(((1, 1), (2,), (3, 3)), "two integers", id="short-point"),
    ],
)
def test_shape_profile(bounds: tuple[Any, Any, Any], message: str | None) -> None:
    if message is None:
        profile = ShapeProfile(*bounds)
        assert profile.contains((2, 3))
        assert not profile.contains((4, 1))
        return
    with pytest.raises(ContractError, match=message):
        ShapeProfile(*bounds)


@pytest.mark.req("spec.core.contracts-without-architecture")
def test_validate_call_params(
    stateless_contract: StatelessModuleContract,
    temporal_contract: TemporalModuleContract[StateFootprint],
) -> None:
    validate_call_params(stateless_contract, {"strength"})
    validate_call_params(temporal_contract, set())
    validate_call_params(temporal_contract, {"reset"})
    with pytest.raises(ContractError, match=r"missing=\['strength'\]"):
        validate_call_params(stateless_contract, set())
    with pytest.raises(ContractError, match=r"undeclared=\['reset'\]"):
        validate_call_params(stateless_contract, {"strength", "reset"})
    with pytest.raises(ContractError, match=r"undeclared=\['gain'\]"):
        validate_call_params(temporal_contract, {"gain"})


def test_every_public_name_is_exported() -> None:
    import pixtreme.infer as infer

    for name in contracts.__all__:
        assert getattr(contracts, name) is not None
    shared = set(contracts.__all__) & set(infer.__all__)
    assert all(getattr(infer, name) is getattr(contracts, name) for name in shared)

"""contracts: every constructor validates, and the derived contracts agree."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pixtreme.infer.contracts import (
    CHECKPOINT_CONTAINERS,
    PRECISIONS,
    Exact,
    FrameContract,
    FrameMetadata,
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

pytestmark = pytest.mark.req("issue6.contracts.validate")


def test_precision_and_container_vocabularies() -> None:
    assert PRECISIONS == ("fp32", "fp16", "int8")
    assert CHECKPOINT_CONTAINERS == ("bare", "params", "params_ema", "params-ema")
    assert parse_precision("fp16") == "fp16"
    assert parse_checkpoint_container("params-ema") == "params-ema"


@pytest.mark.parametrize("value", ["FP32", "bf16", 32, None])
def test_parse_precision_rejects(value: object) -> None:
    with pytest.raises(ContractError, match=r"why=Precision.precision must be one of"):
        parse_precision(value)


@pytest.mark.parametrize("value", ["ema", "", None])
def test_parse_checkpoint_container_rejects(value: object) -> None:
    with pytest.raises(ContractError, match="how=pass one of 'bare'"):
        parse_checkpoint_container(value)


def test_frame_contract_normalizes_channels_and_reports_mismatches(
    make_rgb_contract: Callable[..., FrameContract],
) -> None:
    contract = make_rgb_contract()
    assert contract.channels == Exact(value=("R", "G", "B"))
    observed = FrameMetadata(
        channels=("R", "G", "B"), colorspace="Rec.709", gamma="linear", matrix=None, dtype="float16"
    )
    mismatches = contract.mismatches(observed)
    assert [(m.field, m.observed, m.expected) for m in mismatches] == [
        ("colorspace", "Rec.709", "sRGB"),
        ("dtype", "float16", "float32"),
    ]
    assert contract.reference_metadata().gamma == "sRGB"


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        ({"channels": "RGB"}, "channels must be wrapped in Exact"),
        ({"gamma": "sRGB"}, "gamma must be wrapped"),
        ({"channels": Exact(value="RGQ")}, "channels must hold pixtreme channel labels"),
        ({"channels": Exact(value=())}, "channels must hold pixtreme channel labels"),
        ({"colorspace": Exact(value="srgb")}, "colorspace must be one of"),
        ({"gamma": UnconstrainedWithReference(reference="gamma-9")}, "gamma must be one of"),
        ({"matrix": Exact(value="BT.999")}, "matrix must be one of"),
        ({"dtype": Exact(value="float64")}, "dtype must be one of"),
    ],
    ids=[
        "channels-unwrapped",
        "gamma-unwrapped",
        "channels-unknown-label",
        "channels-empty",
        "colorspace-unknown",
        "gamma-unknown",
        "matrix-unknown",
        "dtype-unsupported",
    ],
)
def test_frame_contract_rejects(
    make_rgb_contract: Callable[..., FrameContract], overrides: dict[str, object], pattern: str
) -> None:
    with pytest.raises(ContractError, match=pattern):
        make_rgb_contract(**overrides)


def test_gpu_array_param_contract_accepts_symbols_and_sizes() -> None:
    param = GpuArrayParamContract(name="noise_map", shape=("H", "W", 1), dtype="float32", unit="1")
    assert param.shape == ("H", "W", 1)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"name": "frame"}, "not 'frame' or 'reset'"),
        ({"name": "reset"}, "not 'frame' or 'reset'"),
        ({"name": "2x"}, "name must be an identifier"),
        ({"name": "a-b"}, "name must be an identifier"),
        ({"shape": ()}, "shape must be a non-empty tuple"),
        ({"shape": [1]}, "shape must be a non-empty tuple"),
        ({"shape": (0,)}, r"shape must be an int >= 1"),
        ({"shape": (True,)}, r"shape must be an int >= 1"),
        ({"shape": ("H W",)}, "shape must be an identifier"),
        ({"dtype": ""}, "dtype must be a non-empty string"),
        ({"unit": " "}, "unit must be a non-empty string"),
    ],
    ids=lambda item: str(item).replace(" ", "")[:40] if isinstance(item, dict) else "",
)
def test_gpu_array_param_contract_rejects(fields: dict[str, object], pattern: str) -> None:
    base: dict[str, Any] = {
        "name": "strength",
        "shape": ("H", "W"),
        "dtype": "float32",
        "unit": "1",
    }
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        GpuArrayParamContract(**base)


def test_shape_profile_contains() -> None:
    profile = ShapeProfile(min_hw=(8, 8), opt_hw=(8, 16), max_hw=(32, 16))
    assert profile.contains((8, 16))
    assert not profile.contains((33, 8))
    assert not profile.contains((8, 7))


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"min_hw": (0, 8)}, "min_hw must be a"),
        ({"opt_hw": (8,)}, "opt_hw must be a"),
        ({"max_hw": [64, 64]}, "max_hw must be a"),
        ({"min_hw": (16, 8), "opt_hw": (8, 8)}, "min <= opt <= max on the height axis"),
        ({"max_hw": (64, 4)}, "min <= opt <= max on the width axis"),
    ],
    ids=["min-zero", "opt-short", "max-list", "height-order", "width-order"],
)
def test_shape_profile_rejects(fields: dict[str, object], pattern: str) -> None:
    base: dict[str, Any] = {"min_hw": (8, 8), "opt_hw": (16, 16), "max_hw": (64, 64)}
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        ShapeProfile(**base)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"amount": 0}, "amount must be an int >= 1"),
        ({"amount": 1.5}, "amount must be an int"),
        ({"amount": 8, "unit": "MiB"}, "unit must be one of"),
    ],
    ids=["zero", "float", "unit"],
)
def test_state_footprint_rejects(fields: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ContractError, match=pattern):
        StateFootprint(**fields)


def test_module_contract_derives_output_size(stateless_contract: StatelessModuleContract) -> None:
    assert stateless_contract.output_hw == (64, 96)
    assert stateless_contract.call_keywords == frozenset({"strength"})


def _module_fields(rgb: FrameContract) -> dict[str, Any]:
    return {"input_frame": rgb, "output_frame": rgb, "input_hw": (8, 8)}


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"input_frame": "RGB"}, "input_frame must be a FrameContract"),
        ({"output_frame": None}, "output_frame must be a FrameContract"),
        ({"input_hw": (8, 0)}, "input_hw must be a"),
        ({"spatial_scale": 0}, "spatial_scale must be an int >= 1"),
        ({"params": [1]}, "params must be a tuple of GpuArrayParamContract"),
        (
            {
                "params": (
                    GpuArrayParamContract(name="a", shape=(1,), dtype="f", unit="1"),
                    GpuArrayParamContract(name="a", shape=(2,), dtype="f", unit="1"),
                )
            },
            "params must be uniquely named",
        ),
    ],
    ids=["input", "output", "hw", "scale", "params-type", "params-duplicate"],
)
def test_stateless_module_contract_rejects(
    rgb_contract: FrameContract, fields: dict[str, Any], pattern: str
) -> None:
    base = _module_fields(rgb_contract)
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        StatelessModuleContract(**base)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"startup_frames": -1}, "startup_frames must be an int >= 0"),
        ({"state_footprint": 100}, "state_footprint must be a StateFootprint"),
        ({"reset_control": "restart"}, "reset_control must be one of"),
    ],
    ids=["startup", "footprint", "reset-control"],
)
def test_temporal_module_contract_rejects(
    rgb_contract: FrameContract, fields: dict[str, Any], pattern: str
) -> None:
    base = _module_fields(rgb_contract)
    base.update({"startup_frames": 0, "state_footprint": StateFootprint(amount=4)})
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        TemporalModuleContract(**base)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"architecture": ""}, "architecture must be a non-empty string"),
        ({"precisions": ()}, "precisions must be a non-empty tuple"),
        ({"precisions": ("fp64",)}, "precisions must be one of"),
        ({"shape_profile": (8, 8)}, "shape_profile must be a ShapeProfile"),
    ],
    ids=["architecture", "precisions-empty", "precisions-unknown", "profile"],
)
def test_family_contract_rejects(
    rgb_contract: FrameContract, profile: ShapeProfile, fields: dict[str, Any], pattern: str
) -> None:
    base: dict[str, Any] = {
        "architecture": "example",
        "input_frame": rgb_contract,
        "output_frame": rgb_contract,
        "shape_profile": profile,
        "precisions": ("fp32",),
    }
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        StatelessFamilyContract(**base)
    with pytest.raises(ContractError, match=pattern):
        TemporalFamilyContract(**base, startup_frames=0, state_footprint_per_pixel=4)


def test_open_contract_derives_module_contracts(
    stateless_family: StatelessFamilyContract, temporal_family: TemporalFamilyContract
) -> None:
    stateless = StatelessOpenContract(
        family=stateless_family, artifact="w1", precision="fp16", input_hw=(32, 48)
    )
    assert stateless.module_contract == StatelessModuleContract(
        input_frame=stateless_family.input_frame,
        output_frame=stateless_family.output_frame,
        input_hw=(32, 48),
        spatial_scale=2,
    )
    temporal = TemporalOpenContract(
        family=temporal_family, artifact=("w", 1), precision="fp32", input_hw=(32, 48)
    ).module_contract
    assert isinstance(temporal, TemporalModuleContract)
    assert temporal.state_footprint == StateFootprint(amount=32 * 48 * 12)
    assert temporal.startup_frames == 2


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"artifact": None}, "artifact must be a hashable artifact identity"),
        ({"artifact": ["w"]}, "artifact must be a hashable artifact identity"),
        ({"precision": "int8"}, "precision must be one of"),
        ({"input_hw": (8, 8)}, "input_hw must lie within the family's shape profile"),
        ({"input_hw": (512, 64)}, "input_hw must lie within"),
        ({"family": "example"}, "family must be a StatelessFamilyContract"),
    ],
    ids=["artifact-none", "artifact-unhashable", "precision", "too-small", "too-large", "family"],
)
def test_open_contract_rejects(
    stateless_family: StatelessFamilyContract, fields: dict[str, Any], pattern: str
) -> None:
    base: dict[str, Any] = {
        "family": stateless_family,
        "artifact": "w1",
        "precision": "fp32",
        "input_hw": (32, 32),
    }
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        StatelessOpenContract(**base)


def test_temporal_open_contract_needs_a_temporal_family(
    stateless_family: StatelessFamilyContract,
) -> None:
    with pytest.raises(ContractError, match="family must be a TemporalFamilyContract"):
        TemporalOpenContract(
            family=stateless_family,  # type: ignore[arg-type]
            artifact="w1",
            precision="fp32",
            input_hw=(32, 32),
        )


@pytest.mark.req("issue6.validate-call-params")
def test_validate_call_params(
    stateless_contract: StatelessModuleContract, temporal_contract: TemporalModuleContract
) -> None:
    assert validate_call_params(stateless_contract, ["strength"]) == {"strength"}
    assert validate_call_params(temporal_contract, ["reset"]) == {"reset"}
    assert validate_call_params(temporal_contract, []) == frozenset()


@pytest.mark.req("issue6.validate-call-params")
@pytest.mark.parametrize(
    ("names", "pattern"),
    [
        ([], r"missing=\['strength'\], undeclared=\[\]"),
        (["strength", "gain"], r"missing=\[\], undeclared=\['gain'\]"),
        (["strength", "reset"], r"undeclared=\['reset'\]"),
    ],
    ids=["missing", "undeclared", "reset-on-stateless"],
)
def test_validate_call_params_rejects(
    stateless_contract: StatelessModuleContract, names: list[str], pattern: str
) -> None:
    with pytest.raises(ContractError, match=pattern):
        validate_call_params(stateless_contract, names)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Exact(value=1),
        lambda: UnconstrainedWithReference(reference=1),
        lambda: ShapeProfile(min_hw=(1, 1), opt_hw=(1, 1), max_hw=(1, 1)),
        lambda: StateFootprint(amount=1),
    ],
    ids=["exact", "unconstrained", "profile", "footprint"],
)
def test_value_objects_are_frozen(make: Callable[[], object]) -> None:
    value = make()
    field = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, 2)


_side = st.integers(min_value=1, max_value=4096)


@given(st.lists(st.tuples(_side, _side), min_size=3, max_size=3))
def test_shape_profile_accepts_exactly_ordered_triples(shapes: list[tuple[int, int]]) -> None:
    low, opt, high = shapes
    ordered = all(low[i] <= opt[i] <= high[i] for i in range(2))
    if ordered:
        profile = ShapeProfile(min_hw=low, opt_hw=opt, max_hw=high)
        assert profile.contains(low)
        assert profile.contains(high)
        assert profile.contains(opt)
    else:
        with pytest.raises(ContractError, match="min <= opt <= max"):
            ShapeProfile(min_hw=low, opt_hw=opt, max_hw=high)

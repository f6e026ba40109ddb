"""Factories and instances without a GPU: contracts, query_contract, rejections before GPU work."""

from __future__ import annotations

from typing import Any

import pytest
from pixtreme.infer.contracts import (
    StateFootprint,
    StatelessFamilyContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalModuleContract,
    TemporalOpenContract,
)
from pixtreme.infer.errors import ContractError
from pixtreme.infer.example import (
    HISTORY_BYTES_PER_PIXEL,
    RECURSIVE_FILTER_FAMILY,
    RECURSIVE_FILTER_RECIPE,
    RGB_FLOAT32,
    SHAPE_PROFILE,
    SUPPORTED_PRECISIONS,
    UPSCALE_X2_FAMILY,
    UPSCALE_X2_RECIPE,
    ClosedInstanceError,
    RecursiveFilterFactory,
    UpscaleX2Factory,
)
from pixtreme.infer.example._instances import (
    RecursiveFilterInference,
    UpscaleX2Inference,
    backend_launches,
)
from pixtreme.infer.recipe_identity import RecipeIdentity

FACTORIES = [
    pytest.param(UpscaleX2Factory, UPSCALE_X2_RECIPE, id="upscale-x2"),
    pytest.param(RecursiveFilterFactory, RECURSIVE_FILTER_RECIPE, id="recursive-filter"),
]
SIZES = [(1, 1), (12, 21), (2160, 3840)]


class _RecordingUnit:
    """A backend stand-in that records every call, to prove rejections happen before it."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.history = None

    def enqueue(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append("enqueue")

    def close(self) -> None:
        self.calls.append("close")


def test_upscaler_family_contract_is_the_published_minimal_form() -> None:
    family = UpscaleX2Factory().family_contract
    assert family == UPSCALE_X2_FAMILY
    assert isinstance(family, StatelessFamilyContract)
    assert family.input_frame == family.output_frame == RGB_FLOAT32
    assert family.params == ()
    assert family.temporal is False


def test_recursive_filter_family_contract() -> None:
    family = RecursiveFilterFactory().family_contract
    assert family == RECURSIVE_FILTER_FAMILY
    assert isinstance(family, TemporalFamilyContract)
    assert family.startup_frames == 0
    assert family.reset_control == "reset"


def test_what_the_example_offers_beyond_the_family() -> None:
    assert SUPPORTED_PRECISIONS == ("fp32",)
    assert SHAPE_PROFILE.min_hw == (1, 1)
    assert SHAPE_PROFILE.max_hw == (2160, 3840)
    assert HISTORY_BYTES_PER_PIXEL == 12
    assert UpscaleX2Factory.network.spatial_scale == 2
    assert RecursiveFilterFactory.network.spatial_scale == 1


@pytest.mark.parametrize(("factory_type", "recipe"), FACTORIES)
@pytest.mark.parametrize("hw", SIZES, ids=str)
def test_query_contract_returns_the_open_contract(
    factory_type: type[Any], recipe: RecipeIdentity, hw: tuple[int, int]
) -> None:
    factory = factory_type()
    opened = factory.query_contract(recipe, precision="fp32", input_hw=hw)
    assert opened.artifact_identity == recipe
    assert opened.family_contract == factory.family_contract
    assert opened.precision == "fp32"
    assert opened.input_hw == hw
    assert opened.scale == factory.network.spatial_scale
    module = opened.module_contract
    assert module.scale == opened.scale
    if factory_type is RecursiveFilterFactory:
        assert isinstance(opened, TemporalOpenContract)
        assert opened.state_footprint == StateFootprint(hw[0] * hw[1] * 12)
        assert isinstance(module, TemporalModuleContract)
        assert module.state_footprint == opened.state_footprint
    else:
        assert isinstance(opened, StatelessOpenContract)
        assert not isinstance(module, TemporalModuleContract)


@pytest.mark.parametrize(("factory_type", "recipe"), FACTORIES)
def test_graph_factory_is_a_separate_factory_with_the_same_family(
    factory_type: type[Any], recipe: RecipeIdentity
) -> None:
    factory = factory_type(backend="tensorrt")
    graphs = factory.graph_factory()
    assert graphs is not factory
    assert graphs.cuda_graphs is True
    assert factory.cuda_graphs is False
    assert graphs.backend == "tensorrt"
    assert graphs.family_contract == factory.family_contract
    assert graphs.query_contract(recipe, precision="fp32", input_hw=(4, 4)) == (
        factory.query_contract(recipe, precision="fp32", input_hw=(4, 4))
    )


@pytest.mark.parametrize(("factory_type", "recipe"), FACTORIES)
@pytest.mark.parametrize(
    ("change", "match"),
    [
        pytest.param({"artifact": "other"}, "exactly one recipe", id="other-artifact"),
        pytest.param({"version": 2}, "exactly one recipe", id="other-version"),
        pytest.param({"precision": "fp16"}, "fp32 only", id="fp16"),
        pytest.param({"input_hw": (4321, 8)}, r"shape profile.*\(2160, 3840\)", id="over-profile"),
        pytest.param({"input_hw": (0, 8)}, "input_hw", id="zero-height"),
        pytest.param({"input_hw": (True, 8)}, "input_hw", id="bool-height"),
        pytest.param({"input_hw": [8, 8]}, "input_hw", id="list"),
    ],
)
def test_query_contract_rejects_bad_settings(
    factory_type: type[Any], recipe: RecipeIdentity, change: dict[str, Any], match: str
) -> None:
    artifact: object = recipe
    if "artifact" in change:
        artifact = change["artifact"]
    if "version" in change:
        artifact = RecipeIdentity(recipe.name, change["version"])
    precision = change.get("precision", "fp32")
    hw = change.get("input_hw", (8, 8))
    factory = factory_type()
    for target in (factory, factory.graph_factory()):
        with pytest.raises(ContractError, match=match) as caught:
            target.query_contract(artifact, precision=precision, input_hw=hw)
        assert str(caught.value).startswith("why=")
        # open repeats the validation before building any backend
        with pytest.raises(ContractError, match=match):
            target.open(artifact, precision=precision, input_hw=hw)


def test_unknown_backend_is_rejected() -> None:
    with pytest.raises(ContractError, match="backend"):
        UpscaleX2Factory(backend="onnxruntime")  # type: ignore[arg-type]


def _upscale_instance() -> tuple[UpscaleX2Inference, _RecordingUnit]:
    contract = UpscaleX2Factory().query_contract(
        UPSCALE_X2_RECIPE, precision="fp32", input_hw=(4, 4)
    )
    unit = _RecordingUnit()
    return UpscaleX2Inference(contract, unit), unit


def _filter_instance() -> tuple[RecursiveFilterInference, _RecordingUnit]:
    contract = RecursiveFilterFactory().query_contract(
        RECURSIVE_FILTER_RECIPE, precision="fp32", input_hw=(4, 4)
    )
    unit = _RecordingUnit()
    return RecursiveFilterInference(contract, unit), unit


@pytest.mark.parametrize(
    ("make", "kwargs", "match"),
    [
        pytest.param(_upscale_instance, {}, "pixtreme.core.Frame", id="upscale-not-a-frame"),
        pytest.param(
            _upscale_instance, {"strength": 1}, "keyword parameters", id="upscale-undeclared"
        ),
        pytest.param(_upscale_instance, {"reset": True}, "keyword parameters", id="upscale-reset"),
        pytest.param(_filter_instance, {}, "pixtreme.core.Frame", id="filter-not-a-frame"),
        pytest.param(_filter_instance, {"alpha": 0.5}, "keyword parameters", id="filter-keyword"),
        pytest.param(_filter_instance, {"reset": "yes"}, "must be a bool", id="filter-reset-str"),
    ],
)
def test_requests_are_rejected_before_the_backend(
    make: Any, kwargs: dict[str, Any], match: str
) -> None:
    instance, unit = make()
    with pytest.raises(ContractError, match=match):
        instance([[0.0]], **kwargs)
    assert unit.calls == []
    assert backend_launches(instance) == 0


@pytest.mark.parametrize("make", [_upscale_instance, _filter_instance], ids=["upscale", "filter"])
def test_close_is_idempotent_and_later_calls_fail(make: Any) -> None:
    instance, unit = make()
    instance.close()
    instance.close()
    assert unit.calls == ["close"]
    with pytest.raises(ClosedInstanceError, match=r"why=.*after close\(\).*how=open a new"):
        instance([[0.0]])
    assert unit.calls == ["close"]
    assert backend_launches(instance) == 0


def test_instances_expose_the_open_contract_and_scale() -> None:
    instance, _ = _upscale_instance()
    assert isinstance(instance.contract, StatelessOpenContract)
    assert instance.contract.input_hw == (4, 4)
    assert instance.scale == instance.contract.scale == 2
    assert instance.output_hw == (8, 8)
    temporal, _ = _filter_instance()
    assert isinstance(temporal.contract, TemporalOpenContract)
    assert temporal.scale == 1


def test_backend_probe_accepts_only_example_instances() -> None:
    with pytest.raises(TypeError, match="not an example instance"):
        backend_launches(object())

"""The inference and factory protocols: what conforms and what does not (checked at runtime)."""

from __future__ import annotations

from typing import Any

import pytest
from pixtreme.infer.contracts import (
    CudaGraphFactoryProvider,
    OpenedStatelessImageInference,
    StatefulImageInference,
    StatelessFamilyContract,
    StatelessImageInference,
    StatelessInferenceFactory,
    StatelessModuleContract,
    StatelessOpenContract,
    TemporalInferenceFactory,
)

pytestmark = pytest.mark.req("issue6.protocols")


class _Opened:
    def __init__(self, contract: StatelessModuleContract) -> None:
        self._contract = contract

    @property
    def contract(self) -> StatelessModuleContract:
        return self._contract

    def __call__(self, frame: Any, /, **params: object) -> Any:
        return frame

    def close(self) -> None:
        return None


class _Factory:
    """A factory whose query allocates nothing and whose open repeats the validation."""

    def __init__(self, family: StatelessFamilyContract) -> None:
        self._family = family

    @property
    def family_contract(self) -> StatelessFamilyContract:
        return self._family

    def query_contract(
        self, artifact: str, /, *, precision: Any, input_hw: tuple[int, int]
    ) -> StatelessOpenContract[str]:
        return StatelessOpenContract(
            family=self._family, artifact=artifact, precision=precision, input_hw=input_hw
        )

    def open(self, artifact: str, /, *, precision: Any, input_hw: tuple[int, int]) -> _Opened:
        return _Opened(
            self.query_contract(artifact, precision=precision, input_hw=input_hw).module_contract
        )

    def graph_factory(self) -> _Factory:
        return _Factory(self._family)


@pytest.mark.req("spec.cuda-graph.factory-provider-protocol")
def test_a_conforming_factory_and_instance(stateless_family: StatelessFamilyContract) -> None:
    factory = _Factory(stateless_family)
    assert isinstance(factory, StatelessInferenceFactory)
    assert isinstance(factory, CudaGraphFactoryProvider)
    queried = factory.query_contract("w", precision="fp32", input_hw=(32, 32))
    opened = factory.open("w", precision="fp32", input_hw=(32, 32))
    assert isinstance(opened, OpenedStatelessImageInference)
    assert isinstance(opened, StatelessImageInference)
    assert opened.contract == queried.module_contract
    assert isinstance(factory.graph_factory(), StatelessInferenceFactory)


@pytest.mark.parametrize(
    ("value", "protocol"),
    [
        (lambda frame: frame, OpenedStatelessImageInference),
        (object(), StatelessImageInference),
        (object(), StatefulImageInference),
        (object(), StatelessInferenceFactory),
        (object(), TemporalInferenceFactory),
        (object(), CudaGraphFactoryProvider),
    ],
    ids=["callable-without-contract", "object", "stateful", "factory", "temporal", "graph"],
)
def test_non_conforming_values(value: object, protocol: type) -> None:
    assert not isinstance(value, protocol)

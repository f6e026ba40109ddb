"""The distribution itself: namespace, metadata, extras, license and what it must not need."""

from __future__ import annotations

from importlib.metadata import metadata, requires
from pathlib import Path

import pixtreme.infer
import pytest


def test_namespace_path_includes_core_source() -> None:
    assert any(p.endswith("pixtreme/infer") for p in pixtreme.infer.__path__)


@pytest.mark.req("spec.capabilities.base-dependency")
@pytest.mark.req("spec.capabilities.extras")
@pytest.mark.req("spec.capabilities.no-tensorrt-or-torch")
def test_distribution_metadata() -> None:
    declared = requires("pixtreme-infer") or []
    base = [item for item in declared if "extra ==" not in item]
    assert base == ["pixtreme>=1.3.0"]
    extras = {item.split("extra == ")[1].strip("'\""): item for item in declared if "extra" in item}
    assert set(extras) == {"ort", "verify"}
    assert any(item.startswith("onnxruntime") and "ort" in item for item in declared)
    assert any(item.startswith("nvidia-ml-py") and "verify" in item for item in declared)
    names = " ".join(declared).lower()
    for banned in ("tensorrt", "tensoracle", "torch"):
        assert banned not in names


def test_version_continues_the_published_series() -> None:
    from packaging.version import Version

    assert Version(metadata("pixtreme-infer")["Version"]) > Version("0.15.1")


@pytest.mark.req("spec.license.mit")
def test_license_is_mit() -> None:
    assert metadata("pixtreme-infer")["License-Expression"] == "MIT"
    text = (Path(__file__).resolve().parents[1] / "LICENSE").read_text()
    assert text.startswith("MIT License")


@pytest.mark.req("spec.cuda-graph.factory-provider-protocol")
def test_cuda_graph_provider_protocol_is_public() -> None:
    from pixtreme.infer import contracts

    assert pixtreme.infer.CudaGraphFactoryProvider is contracts.CudaGraphFactoryProvider
    assert "graph_factory" in vars(contracts.CudaGraphFactoryProvider)

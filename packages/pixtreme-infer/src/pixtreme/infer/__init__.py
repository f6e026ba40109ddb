"""Architecture-independent inference core for pixtreme.

Architectures live in separate distributions and are imported only on attribute access:
``pixtreme.infer.span`` imports the ``pixtreme-infer-span`` distribution's module the first
time it is touched. Architectures this release does not know by name register themselves in
the ``pixtreme.infer.architectures`` entry-point group. Importing this package imports no
architecture module, no onnxruntime, no NVML and no TensorRT.
"""

from pkgutil import extend_path
from types import ModuleType as _ModuleType

# Architecture distributions add modules under pixtreme/infer/. In an editable (workspace)
# install each lives in its own src/ folder, so this package extends its own __path__ too.
__path__ = extend_path(__path__, __name__)

from pixtreme.infer import _dispatch
from pixtreme.infer._frame_contract import (
    Exact,
    FrameContract,
    FrameField,
    FrameMetadataWarning,
    UnconstrainedWithReference,
)
from pixtreme.infer._module_contracts import (
    CheckpointContainer,
    GpuArrayParamContract,
    ModuleContract,
    Precision,
    ShapeProfile,
    StateFootprint,
    StatelessFamilyContract,
    StatelessModuleContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalModuleContract,
    TemporalOpenContract,
)
from pixtreme.infer._protocols import (
    CudaGraphFactoryProvider,
    OpenedStatelessImageInference,
    StatefulImageInference,
    StatelessImageInference,
    StatelessInferenceFactory,
    TemporalInferenceFactory,
)
from pixtreme.infer.errors import actionable_error
from pixtreme.infer.onnx import run_onnx

ARCHITECTURES = _dispatch.ARCHITECTURES
"""Architectures known statically: attribute name -> the distribution that provides it."""

__all__ = [
    "ARCHITECTURES",
    "CheckpointContainer",
    "CudaGraphFactoryProvider",
    "Exact",
    "FrameContract",
    "FrameField",
    "FrameMetadataWarning",
    "GpuArrayParamContract",
    "ModuleContract",
    "OpenedStatelessImageInference",
    "Precision",
    "ShapeProfile",
    "StateFootprint",
    "StatefulImageInference",
    "StatelessFamilyContract",
    "StatelessImageInference",
    "StatelessInferenceFactory",
    "StatelessModuleContract",
    "StatelessOpenContract",
    "TemporalFamilyContract",
    "TemporalInferenceFactory",
    "TemporalModuleContract",
    "TemporalOpenContract",
    "UnconstrainedWithReference",
    "actionable_error",
    "run_onnx",
]


def __getattr__(name: str) -> _ModuleType:
    module = _dispatch.resolve(__name__, name)
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted({*globals(), *_dispatch.architectures(__name__), *_dispatch.CORE_MODULES})

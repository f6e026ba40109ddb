"""Factories of the example architecture: family contracts, query_contract, open, and the
CUDA Graph factories (CudaGraphFactoryProvider).

Selecting a factory and querying a contract touch no GPU: they only build contract values.
``open`` repeats the validation, then builds the backend unit (CuPy kernels or a tensoracle
engine) and, for graph factories, prepares every CUDA Graph before returning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from pixtreme.infer.contracts import (
    Exact,
    FrameContract,
    Precision,
    ShapeProfile,
    StatelessFamilyContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalOpenContract,
    UnconstrainedWithReference,
)
from pixtreme.infer.recipes import RecipeIdentity

from ._errors import parameter_error
from ._instances import (
    FilterUnit,
    RecursiveFilterGraphInference,
    RecursiveFilterInference,
    UpscaleUnit,
    UpscaleX2GraphInference,
    UpscaleX2Inference,
)
from ._networks import RECURSIVE_FILTER, UPSCALE_X2
from ._recipes import RECURSIVE_FILTER_RECIPE, UPSCALE_X2_RECIPE, check_recipe
from ._weights import load_weights

Backend = Literal["cupy", "tensorrt"]
BACKENDS: Final[tuple[Backend, ...]] = ("cupy", "tensorrt")

#: RGB float32 Frames; colorspace, gamma and matrix pass through unchanged (both networks are
#: linear per channel), so they are unconstrained with sRGB as the reference.
RGB_FLOAT32: Final = FrameContract(
    channels=Exact(value=("R", "G", "B")),
    colorspace=UnconstrainedWithReference(reference="sRGB"),
    gamma=UnconstrainedWithReference(reference="sRGB"),
    matrix=UnconstrainedWithReference(reference=None),
    dtype=Exact(value="float32"),
)

#: Input sizes the example opens (each open serves one fixed size).
SHAPE_PROFILE: Final = ShapeProfile(min_hw=(1, 1), opt_hw=(540, 960), max_hw=(2160, 3840))

#: Persistent history per pixel of the recursive filter: 3 float32 values.
HISTORY_BYTES_PER_PIXEL: Final = 3 * 4


def _check_backend(backend: object) -> Backend:
    if backend not in BACKENDS:
        raise parameter_error(
            why="the example runs on one of its two backends",
            what=f"backend={backend!r}",
            how=f"pass backend= one of {BACKENDS!r}",
        )
    return "cupy" if backend == "cupy" else "tensorrt"


class UpscaleX2Factory:
    """Stateless factory of the x2 upscaler (StatelessInferenceFactory[RecipeIdentity]).

    ``backend`` is "cupy" (CuPy kernels, default) or "tensorrt" (a tensoracle engine).
    """

    recipe: Final = UPSCALE_X2_RECIPE

    def __init__(self, *, backend: Backend = "cupy", cuda_graphs: bool = False) -> None:
        self.backend = _check_backend(backend)
        self.cuda_graphs = cuda_graphs
        self._family = StatelessFamilyContract(
            architecture="example.upscale-x2",
            input_frame=RGB_FLOAT32,
            output_frame=RGB_FLOAT32,
            shape_profile=SHAPE_PROFILE,
            precisions=("fp32",),
            spatial_scale=UPSCALE_X2.spatial_scale,
        )

    @property
    def family_contract(self) -> StatelessFamilyContract:
        """What this factory offers, without an artifact or device."""
        return self._family

    def query_contract(
        self, artifact: RecipeIdentity, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> StatelessOpenContract[RecipeIdentity]:
        """Validate the settings and return the open contract (no GPU work)."""
        return StatelessOpenContract(
            family=self._family,
            artifact=check_recipe(artifact, self.recipe),
            precision=precision,
            input_hw=input_hw,
        )

    def _unit(self, precision: Precision, input_hw: tuple[int, int]) -> UpscaleUnit:
        if self.backend == "tensorrt":
            from ._tensorrt_backend import TensorRTUpscaleX2

            return TensorRTUpscaleX2(input_hw=input_hw, precision=precision)
        from ._cupy_backend import CupyUpscaleX2

        return CupyUpscaleX2(load_weights(UPSCALE_X2), input_hw=input_hw)

    def open(
        self, artifact: RecipeIdentity, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> UpscaleX2Inference | UpscaleX2GraphInference:
        """Validate again, build the backend and return an instance with the queried contract."""
        contract = self.query_contract(
            artifact, precision=precision, input_hw=input_hw
        ).module_contract
        unit = self._unit(precision, contract.input_hw)
        if self.cuda_graphs:
            return UpscaleX2GraphInference(contract, unit)
        return UpscaleX2Inference(contract, unit)

    def graph_factory(self) -> UpscaleX2Factory:
        """A separate factory whose instances replay prepared CUDA Graphs."""
        return UpscaleX2Factory(backend=self.backend, cuda_graphs=True)


class RecursiveFilterFactory:
    """Temporal factory of the recursive filter (TemporalInferenceFactory[RecipeIdentity])."""

    recipe: Final = RECURSIVE_FILTER_RECIPE

    def __init__(self, *, backend: Backend = "cupy", cuda_graphs: bool = False) -> None:
        self.backend = _check_backend(backend)
        self.cuda_graphs = cuda_graphs
        self._family = TemporalFamilyContract(
            architecture="example.recursive-filter",
            input_frame=RGB_FLOAT32,
            output_frame=RGB_FLOAT32,
            shape_profile=SHAPE_PROFILE,
            precisions=("fp32",),
            spatial_scale=RECURSIVE_FILTER.spatial_scale,
            startup_frames=RECURSIVE_FILTER.startup_frames,
            state_footprint_per_pixel=HISTORY_BYTES_PER_PIXEL,
        )

    @property
    def family_contract(self) -> TemporalFamilyContract:
        """What this factory offers, without an artifact or device."""
        return self._family

    def query_contract(
        self, artifact: RecipeIdentity, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> TemporalOpenContract[RecipeIdentity]:
        """Validate the settings and return the open contract (no GPU work)."""
        return TemporalOpenContract(
            family=self._family,
            artifact=check_recipe(artifact, self.recipe),
            precision=precision,
            input_hw=input_hw,
        )

    def _unit(self, precision: Precision, input_hw: tuple[int, int]) -> FilterUnit:
        if self.backend == "tensorrt":
            from ._tensorrt_backend import TensorRTRecursiveFilter

            return TensorRTRecursiveFilter(input_hw=input_hw, precision=precision)
        from ._cupy_backend import CupyRecursiveFilter

        return CupyRecursiveFilter(load_weights(RECURSIVE_FILTER), input_hw=input_hw)

    def open(
        self, artifact: RecipeIdentity, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> RecursiveFilterInference | RecursiveFilterGraphInference:
        """Validate again, build the backend and return an instance with the queried contract."""
        contract = self.query_contract(
            artifact, precision=precision, input_hw=input_hw
        ).module_contract
        unit = self._unit(precision, contract.input_hw)
        if self.cuda_graphs:
            return RecursiveFilterGraphInference(contract, unit)
        return RecursiveFilterInference(contract, unit)

    def graph_factory(self) -> RecursiveFilterFactory:
        """A separate factory whose instances replay prepared CUDA Graphs."""
        return RecursiveFilterFactory(backend=self.backend, cuda_graphs=True)


if TYPE_CHECKING:
    # Static proof that the factories satisfy the core's protocols (checked by mypy only).
    from pixtreme.infer.contracts import (
        CudaGraphFactoryProvider,
        StatelessInferenceFactory,
        TemporalInferenceFactory,
    )

    _stateless: StatelessInferenceFactory[RecipeIdentity] = UpscaleX2Factory()
    _temporal: TemporalInferenceFactory[RecipeIdentity] = RecursiveFilterFactory()
    _stateless_graphs: CudaGraphFactoryProvider[StatelessInferenceFactory[RecipeIdentity]] = (
        UpscaleX2Factory()
    )
    _temporal_graphs: CudaGraphFactoryProvider[TemporalInferenceFactory[RecipeIdentity]] = (
        RecursiveFilterFactory()
    )

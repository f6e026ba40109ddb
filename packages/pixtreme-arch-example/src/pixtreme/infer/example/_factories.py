"""Factories of the example architecture: family contracts, query_contract, open, and the
CUDA Graph factories (CudaGraphFactoryProvider).

Selecting a factory and querying a contract touch no GPU: they only build contract values.
``open`` repeats the validation, then builds the backend unit (CuPy kernels or a tensoracle
engine) and, for graph factories, prepares every CUDA Graph before returning.

The family contracts carry only what the core's published form holds (Frames and GPU
parameters, and for the filter its startup frames). What the example offers beyond that is
declared here: SHAPE_PROFILE (the input sizes an instance may be opened for),
SUPPORTED_PRECISIONS, the spatial scale of each network (in its NetworkSpec, repeated in every
open contract) and HISTORY_BYTES_PER_PIXEL (the filter's state footprint per pixel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from pixtreme.infer.contracts import (
    Exact,
    FrameContract,
    Precision,
    ShapeProfile,
    StateFootprint,
    StatelessFamilyContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalOpenContract,
    UnconstrainedWithReference,
)
from pixtreme.infer.recipe_identity import RecipeIdentity

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
    channels=Exact(("R", "G", "B")),
    colorspace=UnconstrainedWithReference("sRGB"),
    gamma=UnconstrainedWithReference("sRGB"),
    matrix=UnconstrainedWithReference(None),
    dtype=Exact("float32"),
)

#: Input sizes the example opens (each open serves one fixed size within this range).
SHAPE_PROFILE: Final = ShapeProfile(min_hw=(1, 1), opt_hw=(540, 960), max_hw=(2160, 3840))

#: Precisions every example network is built for.
SUPPORTED_PRECISIONS: Final[tuple[Precision, ...]] = ("fp32",)

#: Persistent history per pixel of the recursive filter: 3 float32 values.
HISTORY_BYTES_PER_PIXEL: Final = 3 * 4

#: The upscaler's family: RGB float32 in and out, no GPU array parameters.
UPSCALE_X2_FAMILY: Final = StatelessFamilyContract(RGB_FLOAT32, RGB_FLOAT32, ())

#: The recursive filter's family: as the upscaler's, plus its startup frames.
RECURSIVE_FILTER_FAMILY: Final = TemporalFamilyContract(
    RGB_FLOAT32, RGB_FLOAT32, (), RECURSIVE_FILTER.startup_frames
)


def _check_backend(backend: object) -> Backend:
    if backend not in BACKENDS:
        raise parameter_error(
            why="the example runs on one of its two backends",
            what=f"backend={backend!r}",
            how=f"pass backend= one of {BACKENDS!r}",
        )
    return "cupy" if backend == "cupy" else "tensorrt"


def _check_settings(precision: object, input_hw: object) -> tuple[Precision, tuple[int, int]]:
    """Validate precision and input size against the example's offer (no GPU work)."""
    if precision not in SUPPORTED_PRECISIONS:
        raise parameter_error(
            why="the example networks are built for fp32 only",
            what=f"precision={precision!r}",
            how=f"pass precision= one of {SUPPORTED_PRECISIONS!r}",
        )
    if (
        not isinstance(input_hw, tuple)
        or len(input_hw) != 2
        or not all(isinstance(axis, int) and not isinstance(axis, bool) for axis in input_hw)
        or min(input_hw) < 1
    ):
        raise parameter_error(
            why="input_hw must be two positive integers",
            what=f"input_hw={input_hw!r}",
            how="pass input_hw=(height, width) with both at least 1",
        )
    height, width = input_hw
    low, high = SHAPE_PROFILE.min_hw, SHAPE_PROFILE.max_hw
    if not (low[0] <= height <= high[0] and low[1] <= width <= high[1]):
        raise parameter_error(
            why="input_hw lies outside the example's shape profile",
            what=f"input_hw={input_hw!r}; shape profile min_hw={low}, max_hw={high}",
            how=f"pass an input_hw between {low} and {high}, or tile larger images",
        )
    return "fp32", (height, width)


class UpscaleX2Factory:
    """Stateless factory of the x2 upscaler (StatelessInferenceFactory[RecipeIdentity]).

    ``backend`` is "cupy" (CuPy kernels, default) or "tensorrt" (a tensoracle engine).
    """

    recipe: Final = UPSCALE_X2_RECIPE
    network: Final = UPSCALE_X2

    def __init__(self, *, backend: Backend = "cupy", cuda_graphs: bool = False) -> None:
        self.backend = _check_backend(backend)
        self.cuda_graphs = cuda_graphs

    @property
    def family_contract(self) -> StatelessFamilyContract:
        """What this factory offers, without an artifact or device."""
        return UPSCALE_X2_FAMILY

    def query_contract(
        self,
        artifact_identity: RecipeIdentity,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> StatelessOpenContract[RecipeIdentity]:
        """Validate the settings and return the open contract (no GPU work)."""
        recipe = check_recipe(artifact_identity, self.recipe)
        checked, hw = _check_settings(precision, input_hw)
        return StatelessOpenContract(
            UPSCALE_X2_FAMILY, recipe, checked, hw, self.network.spatial_scale
        )

    def _unit(self, precision: Precision, input_hw: tuple[int, int]) -> UpscaleUnit:
        if self.backend == "tensorrt":
            from ._tensorrt_backend import TensorRTUpscaleX2

            return TensorRTUpscaleX2(input_hw=input_hw, precision=precision)
        from ._cupy_backend import CupyUpscaleX2

        return CupyUpscaleX2(load_weights(UPSCALE_X2), input_hw=input_hw)

    def open(
        self,
        artifact_identity: RecipeIdentity,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> UpscaleX2Inference | UpscaleX2GraphInference:
        """Validate again, build the backend and return an instance with the queried contract."""
        contract = self.query_contract(artifact_identity, precision=precision, input_hw=input_hw)
        unit = self._unit(contract.precision, contract.input_hw)
        if self.cuda_graphs:
            return UpscaleX2GraphInference(contract, unit)
        return UpscaleX2Inference(contract, unit)

    def graph_factory(self) -> UpscaleX2Factory:
        """A separate factory whose instances replay prepared CUDA Graphs."""
        return UpscaleX2Factory(backend=self.backend, cuda_graphs=True)


class RecursiveFilterFactory:
    """Temporal factory of the recursive filter (TemporalInferenceFactory[RecipeIdentity])."""

    recipe: Final = RECURSIVE_FILTER_RECIPE
    network: Final = RECURSIVE_FILTER

    def __init__(self, *, backend: Backend = "cupy", cuda_graphs: bool = False) -> None:
        self.backend = _check_backend(backend)
        self.cuda_graphs = cuda_graphs

    @property
    def family_contract(self) -> TemporalFamilyContract:
        """What this factory offers, without an artifact or device."""
        return RECURSIVE_FILTER_FAMILY

    def query_contract(
        self,
        artifact_identity: RecipeIdentity,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> TemporalOpenContract[RecipeIdentity]:
        """Validate the settings and return the open contract (no GPU work)."""
        recipe = check_recipe(artifact_identity, self.recipe)
        checked, hw = _check_settings(precision, input_hw)
        footprint = StateFootprint(hw[0] * hw[1] * HISTORY_BYTES_PER_PIXEL)
        return TemporalOpenContract(
            RECURSIVE_FILTER_FAMILY, recipe, checked, hw, self.network.spatial_scale, footprint
        )

    def _unit(self, precision: Precision, input_hw: tuple[int, int]) -> FilterUnit:
        if self.backend == "tensorrt":
            from ._tensorrt_backend import TensorRTRecursiveFilter

            return TensorRTRecursiveFilter(input_hw=input_hw, precision=precision)
        from ._cupy_backend import CupyRecursiveFilter

        return CupyRecursiveFilter(load_weights(RECURSIVE_FILTER), input_hw=input_hw)

    def open(
        self,
        artifact_identity: RecipeIdentity,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> RecursiveFilterInference | RecursiveFilterGraphInference:
        """Validate again, build the backend and return an instance with the queried contract."""
        contract = self.query_contract(artifact_identity, precision=precision, input_hw=input_hw)
        unit = self._unit(contract.precision, contract.input_hw)
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

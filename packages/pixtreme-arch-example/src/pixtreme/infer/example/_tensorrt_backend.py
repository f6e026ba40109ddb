"""TensorRT backend through tensoracle: engine declarations, network definitions, the engine
cache and execution on the caller's stream.

Everything up to the call into tensoracle is plain data and testable without TensorRT: the
engine declaration (names, shapes, dtypes, builder settings, weight files) and the cache
conditions it contributes. ``network_definition`` and ``TensorRTEngineRunner`` import TensorRT
and tensoracle only when called. One engine serves one fixed input size (the opened
``input_hw``), so its graph uses static dimensions and its shape profile is a single point.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from ._cupy_backend import _check_hwc
from ._errors import closed_error, engine_error, parameter_error
from ._networks import RECURSIVE_FILTER, UPSCALE_X2, NetworkSpec
from ._weights import load_weights, weights_path

ENGINE_NAME_PREFIX: Final = "pixtreme-arch-example"
SUPPORTED_PRECISIONS: Final = ("fp32",)
_WORKSPACE_LIMIT: Final = 1 << 28
_OPTIMIZATION_LEVEL: Final = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class TensorDeclaration:
    """One engine input or output: name, build-time shape and dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineDeclaration:
    """Everything tensoracle needs to build, cache and check one engine, without TensorRT."""

    network: NetworkSpec
    engine_name: str
    graph_version: str
    weights: tuple[Path, ...]
    inputs: tuple[TensorDeclaration, ...]
    outputs: tuple[TensorDeclaration, ...]
    workspace_limit: int = _WORKSPACE_LIMIT
    optimization_level: int = _OPTIMIZATION_LEVEL

    def input_profiles(self) -> dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
        """Shape profile (minimum, optimum, maximum) of every input: one fixed point each."""
        return {tensor.name: (tensor.shape, tensor.shape, tensor.shape) for tensor in self.inputs}

    def cache_conditions(self) -> dict[str, Any]:
        """The TensorRT-independent part of tensoracle's engine cache identity.

        The same keys and values as ``tensoracle._cache._conditions`` (no plugin libraries);
        tensoracle adds the GPU's compatibility properties, OS, CPU architecture and TensorRT
        version. Everything here changes the cached engine too.
        """
        return {
            "name": self.engine_name,
            "graph_version": self.graph_version,
            "weights": [hashlib.sha256(path.read_bytes()).hexdigest() for path in self.weights],
            "plugins": [],
            "inputs": {
                name: {"minimum": list(low), "optimum": list(mid), "maximum": list(high)}
                for name, (low, mid, high) in self.input_profiles().items()
            },
            "builder_settings": {
                "workspace_limit": self.workspace_limit,
                "optimization_level": self.optimization_level,
                "tf32": False,
            },
        }


def engine_declaration(
    spec: NetworkSpec, *, input_hw: tuple[int, int], precision: str = "fp32"
) -> EngineDeclaration:
    """Declare the engine of ``spec`` for one input size and precision."""
    if precision not in SUPPORTED_PRECISIONS:
        raise parameter_error(
            why="the example networks ship fp32 engines only",
            what=f"precision {precision!r}",
            how=f"use one of {SUPPORTED_PRECISIONS!r}",
        )
    height, width = input_hw
    if min(height, width) < 1:
        raise parameter_error(
            why="an engine needs a positive input size",
            what=f"input_hw {input_hw!r}",
            how="pass (height, width) with both at least 1",
        )
    image = (1, height, width, 3)
    scaled = (1, height * spec.spatial_scale, width * spec.spatial_scale, 3)
    inputs = [TensorDeclaration(name="input", shape=image)]
    if spec.temporal:
        inputs.append(TensorDeclaration(name="history", shape=image))
    return EngineDeclaration(
        network=spec,
        engine_name=f"{ENGINE_NAME_PREFIX}.{spec.name}.{precision}",
        graph_version=spec.graph_version,
        weights=(weights_path(spec),),
        inputs=tuple(inputs),
        outputs=(TensorDeclaration(name="output", shape=scaled),),
    )


def tensorrt_unavailable_reason() -> str | None:
    """Why TensorRT engines cannot be built here, or None when tensorrt and tensoracle import."""
    try:
        importlib.import_module("tensorrt")
    except ImportError as error:
        return (
            f"TensorRT is not installed ({type(error).__name__}: {error}); install "
            "tensorrt-cu13 from NVIDIA's package index to build and run engines"
        )
    if importlib.util.find_spec("tensoracle") is None:
        return (
            "tensoracle is not installed (TensorRT is); pip install 'tensoracle>=1.3' to build, "
            "cache and run engines with tensorrt"
        )
    return None


class _NetworkDefinition:
    """Callable that defines a network on a TensorRT INetworkDefinition.

    TensorRT does not copy weight arrays while the network is built, so this object keeps them
    alive; tensoracle holds it for the whole build.
    """

    def __init__(self, declaration: EngineDeclaration) -> None:
        self.declaration = declaration
        self.tensors = load_weights(declaration.network)
        self._retained: list[np.ndarray] = []

    def _keep(self, array: np.ndarray) -> np.ndarray:
        contiguous = np.ascontiguousarray(array, dtype=np.float32)
        self._retained.append(contiguous)
        return contiguous

    def __call__(self, network: Any) -> None:
        trt = importlib.import_module("tensorrt")

        inputs = {
            tensor.name: network.add_input(tensor.name, trt.float32, tensor.shape)
            for tensor in self.declaration.inputs
        }
        if self.declaration.network.name == UPSCALE_X2.name:
            result = self._upscale_x2(network, trt, inputs["input"])
        else:
            result = self._recursive_filter(network, trt, inputs["input"], inputs["history"])
        result.name = "output"
        network.mark_output(result)

    def _upscale_x2(self, network: Any, trt: Any, image: Any) -> Any:
        _, height, width, _ = self.declaration.inputs[0].shape
        to_nchw = network.add_shuffle(image)
        to_nchw.first_transpose = (0, 3, 1, 2)
        # Edge clamp: a slice one pixel beyond each border, sampled with CLAMP.
        clamp = network.add_slice(
            to_nchw.get_output(0), (0, 0, -1, -1), (1, 3, height + 2, width + 2), (1, 1, 1, 1)
        )
        clamp.mode = trt.SampleMode.CLAMP
        conv = network.add_convolution_nd(
            clamp.get_output(0),
            12,
            (3, 3),
            trt.Weights(self._keep(self.tensors["conv.weight"])),
            trt.Weights(self._keep(self.tensors["conv.bias"])),
        )
        # Depth-to-space (CRD) as two shuffles, ending in NHWC.
        phases = network.add_shuffle(conv.get_output(0))
        phases.reshape_dims = (1, 3, 2, 2, height, width)
        phases.second_transpose = (0, 1, 4, 2, 5, 3)
        to_nhwc = network.add_shuffle(phases.get_output(0))
        to_nhwc.reshape_dims = (1, 3, 2 * height, 2 * width)
        to_nhwc.second_transpose = (0, 2, 3, 1)
        return to_nhwc.get_output(0)

    def _recursive_filter(self, network: Any, trt: Any, image: Any, history: Any) -> Any:
        alpha = self.tensors["blend.alpha"].reshape(1, 1, 1, 3)
        keep = (np.float32(1.0) - alpha).astype(np.float32)
        alpha_tensor = network.add_constant((1, 1, 1, 3), trt.Weights(self._keep(alpha)))
        keep_tensor = network.add_constant((1, 1, 1, 3), trt.Weights(self._keep(keep)))
        product = trt.ElementWiseOperation.PROD
        new_part = network.add_elementwise(image, alpha_tensor.get_output(0), product)
        old_part = network.add_elementwise(history, keep_tensor.get_output(0), product)
        blend = network.add_elementwise(
            new_part.get_output(0), old_part.get_output(0), trt.ElementWiseOperation.SUM
        )
        return blend.get_output(0)


def network_definition(declaration: EngineDeclaration) -> Callable[[Any], None]:
    """The graph callable tensoracle builds from (defines inputs, layers and ``output``)."""
    return _NetworkDefinition(declaration)


def open_engine_handle(declaration: EngineDeclaration, *, force_rebuild: bool = False) -> Any:
    """Build or reuse the cached engine through ``tensoracle.open_engine``.

    Raises ModuleNotFoundError (``No module named 'tensorrt'``) where TensorRT is absent, and
    ExampleEngineError when a cached engine is corrupt or was built under other conditions.
    """
    # Imported by name: neither ships type information. TensorRT first, so that where both are
    # absent (the device image has neither) the error names the real missing piece.
    trt = importlib.import_module("tensorrt")
    tensoracle = importlib.import_module("tensoracle")
    build = tensoracle.EngineBuild(
        inputs={
            name: tensoracle.InputShape.ranged(low, mid, high)
            for name, (low, mid, high) in declaration.input_profiles().items()
        },
        settings=tensoracle.BuilderSettings(
            workspace_limit=declaration.workspace_limit,
            optimization_level=declaration.optimization_level,
        ),
    )
    try:
        return _open(tensoracle, trt, declaration, build, force_rebuild=force_rebuild)
    except tensoracle.EngineCacheError as error:
        raise engine_error(
            why="the cached TensorRT engine cannot be used for this declaration",
            what=f"{type(error).__name__}: {error}",
            how=(
                "open it again with force_rebuild=True to rebuild, or remove the file from "
                "the tensoracle cache directory"
            ),
        ) from error


def _open(
    tensoracle: Any, trt: Any, declaration: EngineDeclaration, build: Any, *, force_rebuild: bool
) -> Any:
    def spec(tensor: TensorDeclaration) -> Any:
        return tensoracle.TensorSpec(trt.float32, tensor.shape)

    return tensoracle.open_engine(
        network_definition(declaration),
        build,
        name=declaration.engine_name,
        graph_version=declaration.graph_version,
        weights=declaration.weights,
        io=tensoracle.EngineIO(
            inputs={tensor.name: spec(tensor) for tensor in declaration.inputs},
            outputs={tensor.name: spec(tensor) for tensor in declaration.outputs},
        ),
        force_rebuild=force_rebuild,
    )


class TensorRTEngineRunner:
    """One cached engine and one tensoracle EngineExecution, enqueued on the caller's stream."""

    def __init__(self, declaration: EngineDeclaration, *, force_rebuild: bool = False) -> None:
        self.declaration = declaration
        self._handle = open_engine_handle(declaration, force_rebuild=force_rebuild)
        self.engine_path = Path(self._handle.path)
        """The cached engine file tensoracle wrote or reused."""
        self._execution: Any = self._handle.create_execution()

    def bindings(self) -> list[dict[str, Any]]:
        """The loaded engine's I/O tensors: name, direction, dtype and profile shapes."""
        if self._handle is None:
            raise closed_error("TensorRTEngineRunner.bindings")
        trt = importlib.import_module("tensorrt")
        engine = self._handle.engine
        names = {
            getattr(trt.DataType, member): dtype
            for member, dtype in (("FLOAT", "float32"), ("HALF", "float16"), ("INT32", "int32"))
        }
        found = []
        for index in range(engine.num_io_tensors):
            name = engine.get_tensor_name(index)
            is_input = engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT
            shape = tuple(engine.get_tensor_shape(name))
            low = mid = high = shape
            if is_input and -1 in shape:
                low, mid, high = (tuple(part) for part in engine.get_tensor_profile_shape(name, 0))
            dtype = engine.get_tensor_dtype(name)
            found.append(
                {
                    "name": name,
                    "direction": "input" if is_input else "output",
                    "dtype": names.get(dtype, str(dtype)),
                    "shapes": [list(low), list(mid), list(high)],
                }
            )
        return found

    def enqueue(self, addresses: Mapping[str, int], *, stream: int) -> None:
        """Enqueue one inference with device addresses for every tensor; no host wait."""
        if self._execution is None:
            raise closed_error("TensorRTEngineRunner.enqueue")
        self._execution.enqueue(dict(addresses), stream=stream)

    def close(self) -> None:
        """Release the execution context and engine (idempotent, no synchronization)."""
        if self._execution is not None:
            self._execution.close()
        self._execution = None
        self._handle = None


def _current_stream_pointer() -> int:
    import cupy

    return int(cupy.cuda.get_current_stream().ptr)


class TensorRTUpscaleX2:
    """The x2 upscaler as a tensoracle engine; same ``enqueue`` as the CuPy unit."""

    def __init__(self, *, input_hw: tuple[int, int], precision: str = "fp32") -> None:
        self.input_hw = input_hw
        self.runner = TensorRTEngineRunner(
            engine_declaration(UPSCALE_X2, input_hw=input_hw, precision=precision)
        )

    def enqueue(self, source: Any, destination: Any) -> None:
        """Run the engine from ``source`` into ``destination`` on the current CuPy stream."""
        # tensoracle cannot check buffers: a wrong size would be written out of bounds.
        height, width = self.input_hw
        _check_hwc(source, name="source", shape=(height, width, 3))
        _check_hwc(destination, name="destination", shape=(2 * height, 2 * width, 3))
        self.runner.enqueue(
            {"input": int(source.data.ptr), "output": int(destination.data.ptr)},
            stream=_current_stream_pointer(),
        )

    def close(self) -> None:
        """Release the engine (no synchronization)."""
        self.runner.close()


class TensorRTRecursiveFilter:
    """The recursive filter as a tensoracle engine; history and restart stay in CuPy."""

    def __init__(self, *, input_hw: tuple[int, int], precision: str = "fp32") -> None:
        from ._cupy_backend import CupyRecursiveFilter

        self.input_hw = input_hw
        self.runner = TensorRTEngineRunner(
            engine_declaration(RECURSIVE_FILTER, input_hw=input_hw, precision=precision)
        )
        # The CuPy unit owns the history and the restart kernel; the engine does the blend.
        self._state = CupyRecursiveFilter(load_weights(RECURSIVE_FILTER), input_hw=input_hw)

    @property
    def history(self) -> Any:
        """The GPU history y_{t-1}."""
        return self._state.history

    def enqueue(self, source: Any, destination: Any, *, restart: bool) -> None:
        """Filter ``source`` into ``destination`` and the history on the current stream."""
        shape = (*self.input_hw, 3)
        _check_hwc(source, name="source", shape=shape)
        _check_hwc(destination, name="destination", shape=shape)
        if restart:
            self._state.enqueue(source, destination, restart=True)
            return
        import cupy

        self.runner.enqueue(
            {
                "input": int(source.data.ptr),
                "history": int(self._state.history.data.ptr),
                "output": int(destination.data.ptr),
            },
            stream=_current_stream_pointer(),
        )
        cupy.copyto(self._state.history, destination)

    def close(self) -> None:
        """Release the engine and the history (no synchronization)."""
        self.runner.close()
        self._state.close()


def probe_inputs(declaration: EngineDeclaration) -> dict[str, np.ndarray]:
    """Seeded host inputs of every engine input (the same in every process)."""
    rng = np.random.default_rng(2024)
    return {
        tensor.name: rng.random(tensor.shape[1:], dtype=np.float32) for tensor in declaration.inputs
    }


def run_once(runner: TensorRTEngineRunner, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """One engine run on a fresh non-default stream; the output on the host."""
    import cupy

    output_shape = runner.declaration.outputs[0].shape[1:]
    with cupy.cuda.Stream(non_blocking=True) as stream:
        device = {name: cupy.asarray(value) for name, value in inputs.items()}
        output = cupy.empty(output_shape, dtype=cupy.float32)
        addresses = {name: int(array.data.ptr) for name, array in device.items()}
        runner.enqueue({**addresses, "output": int(output.data.ptr)}, stream=int(stream.ptr))
        stream.synchronize()
        return np.asarray(cupy.asnumpy(output))

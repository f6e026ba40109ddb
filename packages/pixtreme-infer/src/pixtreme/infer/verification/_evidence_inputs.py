"""What the evidence harvesters feed to a module and what they keep of its outputs.

A harvester asks a FrameSource for each input as a FrameRequest (seed, size and the five Frame
metadata fields), derives the Frame-boundary cases from the module's FrameContract, and keeps
each output as the value a ``capture`` callable returns (by default a HostFrame: metadata plus
host pixels). Nothing here imports CuPy except CupyFrameSource, and only when it is called.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt
from pixtreme.infer._frame_contract import FRAME_FIELDS, Exact, FrameContract, field_value
from pixtreme.infer.contracts import GpuArrayParamContract
from pixtreme.infer.verification.contracts import GpuArrayFacts, VerificationInputError

# A second valid value for each metadata field, used to vary a request away from its reference.
_ALTERNATIVES: dict[str, tuple[object, object]] = {
    "colorspace": ("sRGB", "Rec.709"),
    "gamma": ("sRGB", "linear"),
    "matrix": (None, "BT.709"),
    "dtype": ("float32", "float16"),
}


@dataclass(frozen=True)
class FrameRequest:
    """One input a harvester asks for: a seed, its (height, width) and its metadata fields."""

    seed: int
    hw: tuple[int, int]
    channels: tuple[str, ...]
    colorspace: str
    gamma: str
    matrix: str | None
    dtype: str

    def frame_metadata(self) -> dict[str, object]:
        """The Frame keyword metadata: channels, colorspace, gamma and matrix."""
        return {
            "channels": self.channels,
            "colorspace": self.colorspace,
            "gamma": self.gamma,
            "matrix": self.matrix,
        }


def reference_request(contract: FrameContract, hw: tuple[int, int], seed: int) -> FrameRequest:
    """The request whose metadata is each field's Exact value or reference value."""
    values = {name: field_value(getattr(contract, name)) for name in FRAME_FIELDS}
    return FrameRequest(seed, hw, **values)


def alternative_value(name: str, value: object) -> object:
    """A valid value of metadata field ``name`` that differs from ``value``."""
    if name == "channels":
        labels = tuple(value) if isinstance(value, tuple) else ()
        flipped = labels[::-1]
        if flipped != labels:
            return flipped
        return ("A",) * len(labels) if labels != ("A",) * len(labels) else ("Y",) * len(labels)
    first, second = _ALTERNATIVES[name]
    return second if value == first else first


def varied(request: FrameRequest, overrides: Mapping[str, object]) -> FrameRequest:
    """``request`` with some metadata fields replaced (unknown names raise)."""
    unknown = sorted(set(overrides) - set(FRAME_FIELDS))
    if unknown:
        raise VerificationInputError(
            why="a request varies only the five Frame metadata fields",
            what=f"unknown fields {unknown}",
            how=f"use names from {list(FRAME_FIELDS)}",
        )
    return dataclasses.replace(request, **overrides)  # type: ignore[arg-type]


class FrameSource(Protocol):
    """Makes the inputs of the harvested calls: Frames and their declared GPU parameters."""

    def frame(self, request: FrameRequest) -> object:
        """A Frame (pixtreme.core.Frame on a GPU) holding ``request``'s size and metadata."""
        ...

    def params(
        self, request: FrameRequest, declared: tuple[GpuArrayParamContract, ...]
    ) -> dict[str, object]:
        """One GPU array per declared parameter, for a call with ``request``'s Frame."""
        ...


def _host_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> npt.NDArray[Any]:
    kind = np.dtype(dtype)
    if kind.kind == "f":
        return rng.random(shape, dtype=np.float64).astype(kind)
    if kind.kind in "ui":
        info = np.iinfo(kind)
        values: npt.NDArray[Any] = rng.integers(
            max(info.min, 0), info.max, size=shape, endpoint=True, dtype=kind
        )
        return values
    raise VerificationInputError(
        why="the default Frame source fills float and integer arrays only",
        what=f"dtype {dtype!r}",
        how="pass EvidenceSubject(frames=...) with a FrameSource that makes these inputs",
    )


class CupyFrameSource:
    """Seeded random Frames and GPU parameters on the current CUDA device.

    Float data lies in [0, 1); integer data spans the dtype. Parameter shapes bind ``H`` and
    ``W`` to the Frame's size and other symbols to ``bindings``.
    """

    def __init__(self, *, bindings: Mapping[str, int] | None = None) -> None:
        self.bindings = dict(bindings or {})

    def host_pixels(self, request: FrameRequest) -> npt.NDArray[Any]:
        """The Frame's pixels on the host (HWC)."""
        shape = (*request.hw, len(request.channels))
        return _host_values(np.random.default_rng(request.seed), shape, request.dtype)

    def host_params(
        self, request: FrameRequest, declared: tuple[GpuArrayParamContract, ...]
    ) -> dict[str, npt.NDArray[Any]]:
        """The parameters' values on the host, by name."""
        symbols = {**self.bindings, "H": request.hw[0], "W": request.hw[1]}
        arrays = {}
        for index, param in enumerate(declared):
            missing = [
                item for item in param.shape if isinstance(item, str) and item not in symbols
            ]
            if missing:
                raise VerificationInputError(
                    why="each parameter shape symbol needs a size",
                    what=f"parameter {param.name!r} uses unbound symbols {missing}",
                    how="pass CupyFrameSource(bindings={...}) naming every symbol besides H and W",
                )
            shape = tuple(symbols[item] if isinstance(item, str) else item for item in param.shape)
            rng = np.random.default_rng((request.seed, index + 1))
            arrays[param.name] = _host_values(rng, shape, param.dtype)
        return arrays

    def frame(self, request: FrameRequest) -> object:
        """A pixtreme.core.Frame on the current device."""
        import cupy
        from pixtreme.core import Frame

        return Frame(data=cupy.asarray(self.host_pixels(request)), **request.frame_metadata())

    def params(
        self, request: FrameRequest, declared: tuple[GpuArrayParamContract, ...]
    ) -> dict[str, object]:
        """CuPy arrays on the current device, by name."""
        import cupy

        return {
            name: cupy.asarray(value) for name, value in self.host_params(request, declared).items()
        }


@dataclass(frozen=True)
class FrameCase:
    """One Frame-boundary request: its name, whether it must be accepted, how it differs.

    ``hw`` defaults to the opened input size; ``overrides`` replace metadata fields of the
    reference request; ``params`` replaces the source's GPU parameters for this call.
    """

    name: str
    expected: Literal["accept", "reject"]
    hw: tuple[int, int] | None = None
    overrides: Mapping[str, object] = field(default_factory=dict)
    params: Mapping[str, object] | None = None


def default_frame_cases(
    contract: FrameContract, input_hw: tuple[int, int]
) -> tuple[FrameCase, ...]:
    """Cases derived from a FrameContract: the reference and every unconstrained field varied
    (accepted), another height or width and every Exact field varied (rejected)."""
    height, width = input_hw
    accepted = [FrameCase("reference", "accept")]
    rejected = [
        FrameCase("other-height", "reject", hw=(height + 1, width)),
        FrameCase("other-width", "reject", hw=(height, width + 1)),
    ]
    for name in FRAME_FIELDS:
        declared = getattr(contract, name)
        other = alternative_value(name, field_value(declared))
        if isinstance(declared, Exact):
            rejected.append(FrameCase(f"other-{name}", "reject", overrides={name: other}))
        else:
            accepted.append(FrameCase(f"any-{name}", "accept", overrides={name: other}))
    return (*accepted, *rejected)


def unconstrained_variation(contract: FrameContract) -> dict[str, object]:
    """Overrides that change the first unconstrained field (empty when all are Exact)."""
    for name in FRAME_FIELDS:
        declared = getattr(contract, name)
        if not isinstance(declared, Exact):
            return {name: alternative_value(name, declared.reference)}
    return {}


def _device_label(value: object) -> str:
    device = getattr(value, "device", None)
    index = getattr(device, "id", None)
    return str(device) if index is None else f"cuda:{index}"


def array_facts(name: str, value: object) -> GpuArrayFacts:
    """GpuArrayFacts of one GPU array argument (shape, dtype and ``cuda:<id>`` device)."""
    shape = tuple(int(item) for item in getattr(value, "shape", ()))
    return GpuArrayFacts(name, shape, str(getattr(value, "dtype", "")), _device_label(value))


def device_pointer(value: object) -> int:
    """The device address of a CUDA array or of a Frame's data (CUDA Array Interface)."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        interface = getattr(getattr(value, "data", None), "__cuda_array_interface__", None)
    data = interface.get("data") if isinstance(interface, dict) else None
    if not isinstance(data, tuple) or not data or not isinstance(data[0], int):
        raise VerificationInputError(
            why="an allocation is identified by its CUDA Array Interface pointer",
            what=f"{type(value).__name__} exposes no __cuda_array_interface__ data pointer",
            how="pass a CuPy array, a Frame, or another CUDA Array Interface producer",
        )
    return data[0]


def _to_host(data: object) -> npt.NDArray[Any]:
    if isinstance(data, np.ndarray):
        return data
    get = getattr(data, "get", None)  # cupy.ndarray.get() copies to the host on this stream
    return np.asarray(get() if callable(get) else data)


@dataclass(frozen=True, eq=False)
class HostFrame:
    """A Frame as the harvesters keep it: its metadata and its pixels on the host."""

    metadata: Mapping[str, object]
    pixels: npt.NDArray[Any]

    def with_pixels(self, pixels: npt.ArrayLike) -> HostFrame:
        """The same metadata with other pixels (a reference output, for instance)."""
        return HostFrame(self.metadata, np.asarray(pixels))

    def __repr__(self) -> str:
        digest = hashlib.sha256(np.ascontiguousarray(self.pixels).tobytes()).hexdigest()[:12]
        return (
            f"HostFrame(shape={self.pixels.shape}, pixels={self.pixels.dtype}, "
            f"sha256={digest}, metadata={dict(self.metadata)})"
        )


def host_frame(frame: object) -> HostFrame:
    """Copy a Frame's pixels to the host and keep its metadata (the default capture)."""
    pixels = _to_host(getattr(frame, "data", None))
    metadata: dict[str, object] = {
        "channels": tuple(getattr(frame, "channels", ())),
        "colorspace": getattr(frame, "colorspace", None),
        "gamma": getattr(frame, "gamma", None),
        "matrix": getattr(frame, "matrix", None),
        "dtype": str(pixels.dtype),
    }
    return HostFrame(metadata, pixels)


def _pixels_close(expected: object, observed: object, atol: float) -> bool:
    a = np.asarray(expected, dtype=np.float64)
    b = np.asarray(observed, dtype=np.float64)
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    difference = np.abs(a - b)
    return bool(np.all(np.isfinite(difference)) and difference.max() <= atol)


def outputs_within(atol: float = 0.0) -> Callable[[object, object], bool]:
    """An outputs_equivalent comparator: HostFrames (or arrays) with equal metadata whose
    pixels differ by at most ``atol``; any other values compare with ``==``."""

    def equivalent(expected: object, observed: object) -> bool:
        if isinstance(expected, HostFrame) and isinstance(observed, HostFrame):
            return dict(expected.metadata) == dict(observed.metadata) and _pixels_close(
                expected.pixels, observed.pixels, atol
            )
        if isinstance(expected, np.ndarray) or isinstance(observed, np.ndarray):
            return _pixels_close(expected, observed, atol)
        return bool(expected == observed)

    return equivalent


@dataclass(frozen=True)
class ReferenceRequest:
    """One request as a reference sees it: the captured input, its GPU params and reset."""

    frame: object
    params: Mapping[str, object]
    reset: bool


Reference = Callable[[Sequence[ReferenceRequest]], Sequence[object]]
"""Expected captured outputs for a request sequence (one per request, in order)."""

"""ONNX verification on ONNX Runtime's CPU provider (the ``ort`` extra).

A graph states its output contract in the model metadata under ``"pixtreme.infer.contract"``
as JSON, ``{"output": {"batch": 1, "channels": 3, "spatial_scale": 2, "dtype": "float32",
"layout": "NHWC"}}``, and binds exactly one input called ``input`` and one output called
``output``. ``run_onnx`` checks a run against that contract; ``verify_onnx`` also compares the
output with a reference under a stated tolerance. onnxruntime is imported only when a graph runs.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pixtreme.infer import _validate as v
from pixtreme.infer.dependencies import require_optional
from pixtreme.infer.errors import ContractError, InferError

__all__ = [
    "CONTRACT_METADATA_KEY",
    "OnnxContractError",
    "OnnxExecutionError",
    "OnnxOutputContract",
    "OnnxReferenceComparison",
    "OnnxReferenceMismatchError",
    "OnnxRun",
    "OnnxTolerance",
    "contract_metadata",
    "run_onnx",
    "verify_onnx",
]

CONTRACT_METADATA_KEY = "pixtreme.infer.contract"
INPUT_NAME = "input"
OUTPUT_NAME = "output"
_OUTPUT_FIELDS = ("batch", "channels", "spatial_scale", "dtype", "layout")
_ACCEPTED = (
    f"JSON metadata {CONTRACT_METADATA_KEY!r} holding an 'output' object with positive integer "
    "batch, channels and spatial_scale, a NumPy dtype name and layout 'NHWC'"
)


class OnnxContractError(ContractError):
    """A graph, its metadata, bindings, input or output break the ONNX contract."""


class OnnxExecutionError(InferError, RuntimeError):
    """ONNX Runtime could not load or run the graph on the CPU provider."""


class OnnxReferenceMismatchError(OnnxContractError):
    """The output differs from the reference by more than the stated tolerance."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxOutputContract:
    """What the graph's single output must be for a [1, H, W, 3] float32 input."""

    batch: int
    channels: int
    spatial_scale: int
    dtype: str
    layout: Literal["NHWC"] = "NHWC"

    def __post_init__(self) -> None:
        owner = "OnnxOutputContract"
        v.positive_int(owner, "batch", self.batch)
        v.positive_int(owner, "channels", self.channels)
        v.positive_int(owner, "spatial_scale", self.spatial_scale)
        try:
            np.dtype(self.dtype)
        except TypeError:
            v.fail(
                owner,
                "dtype",
                self.dtype,
                expected="a NumPy dtype name",
                how="pass a name such as 'float32'",
            )
        v.one_of(owner, "layout", self.layout, ("NHWC",))

    def as_dict(self) -> dict[str, object]:
        """The JSON object stored in the model metadata."""
        return {"output": {field: getattr(self, field) for field in _OUTPUT_FIELDS}}

    def output_shape(self, input_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The output shape this contract requires for ``input_shape`` (N, H, W, 3)."""
        _, height, width, _ = input_shape
        scale = self.spatial_scale
        return (self.batch, height * scale, width * scale, self.channels)


def contract_metadata(contract: OnnxOutputContract) -> dict[str, str]:
    """The metadata_props entry to store in a graph (key CONTRACT_METADATA_KEY)."""
    return {CONTRACT_METADATA_KEY: json.dumps(contract.as_dict(), sort_keys=True)}


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxTolerance:
    """Stated bounds for comparing against a reference: max and (optionally) mean abs error."""

    max_abs: float
    mean_abs: float | None = None

    def __post_init__(self) -> None:
        for field in ("max_abs", "mean_abs"):
            value = getattr(self, field)
            if value is None and field == "mean_abs":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                v.fail(
                    "OnnxTolerance",
                    field,
                    value,
                    expected="a non-negative finite number",
                    how="state the bound the reference was validated with, such as 1e-5",
                )
            if value == float("inf"):
                v.fail(
                    "OnnxTolerance",
                    field,
                    value,
                    expected="finite",
                    how="state a finite bound; an infinite bound checks nothing",
                )


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxReferenceComparison:
    """How the output compared with the reference under the stated tolerance."""

    max_abs_difference: float
    mean_abs_difference: float
    tolerance: OnnxTolerance
    passed: bool

    def __post_init__(self) -> None:
        owner = "OnnxReferenceComparison"
        how = "pass the absolute differences, or math.inf when an output is not finite"
        worst = v.number(
            owner, "max_abs_difference", self.max_abs_difference, minimum=0, allow_inf=True, how=how
        )
        mean = v.number(
            owner,
            "mean_abs_difference",
            self.mean_abs_difference,
            minimum=0,
            allow_inf=True,
            how=how,
        )
        tolerance = v.instance_of(owner, "tolerance", self.tolerance, OnnxTolerance)
        v.flag(owner, "passed", self.passed)
        if mean > worst and not math.isclose(mean, worst, rel_tol=1e-9):
            v.fail(
                owner,
                "mean_abs_difference",
                mean,
                expected=f"at most max_abs_difference={worst!r}",
                how="compute both from the same differences",
            )
        within = math.isfinite(worst) and worst <= tolerance.max_abs
        if tolerance.mean_abs is not None:
            within = within and mean <= tolerance.mean_abs
        if self.passed != within:
            v.fail(
                owner,
                "passed",
                self.passed,
                expected=f"{within} for max {worst!r} and mean {mean!r} under {tolerance}",
                how="derive passed from the differences and the tolerance (run_onnx does)",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxRun:
    """One checked run: the output, the contract it met and the optional comparison."""

    output: npt.NDArray[Any]
    contract: OnnxOutputContract
    comparison: OnnxReferenceComparison | None

    def __post_init__(self) -> None:
        owner = "OnnxRun"
        v.instance_of(owner, "output", self.output, np.ndarray)
        contract = v.instance_of(owner, "contract", self.contract, OnnxOutputContract)
        if self.comparison is not None:
            v.instance_of(owner, "comparison", self.comparison, OnnxReferenceComparison)
        shape = tuple(self.output.shape)
        if (
            len(shape) != 4
            or shape[0] != contract.batch
            or shape[3] != contract.channels
            or self.output.dtype != np.dtype(contract.dtype)
        ):
            v.fail(
                owner,
                "output",
                f"array of shape {shape} and dtype {self.output.dtype}",
                expected=f"an NHWC array of shape ({contract.batch}, H, W, {contract.channels}) "
                f"and dtype {contract.dtype}",
                how="keep the output run_onnx checked against the contract",
            )


def _error(why: str, what: str, how: str) -> OnnxContractError:
    return OnnxContractError(why=why, what=what, how=how)


def _check_input(array: object) -> npt.NDArray[np.float32]:
    accepted = "a numpy.ndarray of shape [1, H, W, 3] (H, W >= 1) and dtype float32"
    if not isinstance(array, np.ndarray):
        raise _error(
            "run_onnx accepts only the public NHWC float32 tensor contract",
            f"observed input type={type(array).__module__}.{type(array).__qualname__}",
            f"pass {accepted} (copy a Frame to the host with cupy.asnumpy and add array[None])",
        )
    shape = array.shape
    if (
        array.dtype != np.float32
        or array.ndim != 4
        or shape[0] != 1
        or shape[3] != 3
        or (min(shape[1:3]) < 1)
    ):
        raise _error(
            "run_onnx accepts only the public NHWC float32 tensor contract",
            f"observed shape={shape!r}, dtype={array.dtype!s}",
            f"pass {accepted}",
        )
    return array


def _read_contract(metadata: object, path: str) -> OnnxOutputContract:
    def bad(why: str, observed: object) -> OnnxContractError:
        return _error(
            why,
            f"{path}: observed metadata={observed!r}",
            f"regenerate the artifact with {_ACCEPTED}",
        )

    if not isinstance(metadata, dict):
        raise bad("the ONNX model metadata is not a mapping", metadata)
    raw = metadata.get(CONTRACT_METADATA_KEY)
    if not isinstance(raw, str):
        raise bad("the ONNX artifact has no string contract metadata declaration", metadata)

    def no_constants(name: str) -> object:
        raise ValueError(f"non-JSON constant {name}")

    try:
        document = json.loads(raw, parse_constant=no_constants)
    except (ValueError, RecursionError) as error:
        raise bad("the ONNX artifact contract metadata is not valid JSON", raw) from error
    output = document.get("output") if isinstance(document, dict) else None
    if not isinstance(output, dict) or any(field not in output for field in _OUTPUT_FIELDS):
        raise bad(
            "the ONNX artifact contract metadata has no complete output declaration", document
        )
    try:
        return OnnxOutputContract(**{field: output[field] for field in _OUTPUT_FIELDS})
    except ContractError as error:
        raise bad(
            f"the ONNX artifact output declaration is invalid ({error.why})", document
        ) from error


def _execute(
    onnx_path: str | os.PathLike[str], array: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[Any], OnnxOutputContract]:
    ort: Any = require_optional("onnxruntime", extra="ort")
    path = os.fspath(onnx_path)
    try:
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    except Exception as error:
        raise OnnxExecutionError(
            why="ONNX Runtime could not load the artifact with CPUExecutionProvider",
            what=f"artifact={path!r}; backend error={error}",
            how="check the path, regenerate the ONNX artifact, and check that "
            "pixtreme-infer[ort] matches this platform",
        ) from error
    try:
        metadata = dict(session.get_modelmeta().custom_metadata_map)
    except Exception as error:
        raise _error(
            "the ONNX artifact model metadata could not be read",
            f"{path}: {error}",
            f"regenerate the artifact with {_ACCEPTED}",
        ) from error
    contract = _read_contract(metadata, path)
    inputs = [item.name for item in session.get_inputs()]
    outputs = [item.name for item in session.get_outputs()]
    if inputs != [INPUT_NAME] or outputs != [OUTPUT_NAME]:
        raise _error(
            f"a verified graph binds exactly one {INPUT_NAME!r} input and one "
            f"{OUTPUT_NAME!r} output",
            f"observed input names={inputs!r}, output names={outputs!r}",
            "rename the bindings when exporting (input_names/output_names)",
        )
    try:
        result = session.run([OUTPUT_NAME], {INPUT_NAME: array})[0]
    except Exception as error:
        raise OnnxExecutionError(
            why="ONNX Runtime failed while executing the graph",
            what=f"artifact={path!r}; input shape={array.shape!r}; backend error={error}",
            how="inspect the artifact and the input, then rerun without provider fallback",
        ) from error
    _, height, width, _ = array.shape
    expected = (
        contract.batch,
        height * contract.spatial_scale,
        width * contract.spatial_scale,
        contract.channels,
    )
    if (
        not isinstance(result, np.ndarray)
        or result.shape != expected
        or (result.dtype != np.dtype(contract.dtype))
    ):
        raise _error(
            "the ONNX artifact returned a value outside its public output contract",
            f"observed shape={getattr(result, 'shape', None)!r}, "
            f"dtype={getattr(result, 'dtype', None)!s}",
            f"regenerate the artifact; expected shape={expected!r}, dtype={contract.dtype}",
        )
    return result, contract


def run_onnx(onnx_path: str | os.PathLike[str], input_nhwc: np.ndarray) -> np.ndarray:
    """Run a graph on the CPU provider only and check its output against its stated contract.

    Checks, in order: the input array, the contract metadata, the bindings (exactly ``input``
    and ``output``), then the output's shape and dtype.
    """
    return _execute(onnx_path, _check_input(input_nhwc))[0]


def _compare(
    output: npt.NDArray[Any], reference: object, tolerance: OnnxTolerance
) -> OnnxReferenceComparison:
    expected = np.asarray(reference)
    if expected.shape != output.shape:
        raise _error(
            "the reference must have the output's shape",
            f"reference shape {expected.shape}, output shape {output.shape}",
            "regenerate the reference for this input size",
        )
    difference = np.abs(output.astype(np.float64) - expected.astype(np.float64))
    finite = bool(np.isfinite(difference).all())
    max_abs = float(difference.max()) if finite else float("inf")
    mean_abs = float(difference.mean()) if finite else float("inf")
    passed = finite and max_abs <= tolerance.max_abs
    if tolerance.mean_abs is not None:
        passed = passed and mean_abs <= tolerance.mean_abs
    return OnnxReferenceComparison(
        max_abs_difference=max_abs, mean_abs_difference=mean_abs, tolerance=tolerance, passed=passed
    )


def verify_onnx(
    onnx_path: str | os.PathLike[str],
    input_nhwc: np.ndarray,
    *,
    reference: npt.ArrayLike,
    tolerance: OnnxTolerance,
    raise_on_mismatch: bool = True,
) -> OnnxRun:
    """Run a graph as run_onnx does and compare its output with ``reference``.

    Raises OnnxReferenceMismatchError when the difference exceeds ``tolerance`` (unless
    ``raise_on_mismatch`` is False; the comparison is returned either way).
    """
    array = _check_input(input_nhwc)
    if not isinstance(tolerance, OnnxTolerance):
        raise _error(
            "a reference comparison needs a stated tolerance",
            f"observed tolerance={tolerance!r}",
            "pass tolerance=OnnxTolerance(max_abs=..., mean_abs=...)",
        )
    output, contract = _execute(onnx_path, array)
    comparison = _compare(output, reference, tolerance)
    if raise_on_mismatch and not comparison.passed:
        raise OnnxReferenceMismatchError(
            why="the ONNX output must match the reference within the stated tolerance",
            what=f"max abs difference {comparison.max_abs_difference:.3g}, mean "
            f"{comparison.mean_abs_difference:.3g}; tolerance max "
            f"{comparison.tolerance.max_abs}, mean {comparison.tolerance.mean_abs}",
            how="fix the export or the weights, or regenerate the reference if it is stale",
        )
    return OnnxRun(output=output, contract=contract, comparison=comparison)

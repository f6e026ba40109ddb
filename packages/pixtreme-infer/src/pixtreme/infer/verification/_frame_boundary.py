"""Frame boundary and DLPack allocation evidence, and the checks that judge it.

Checks: ``frame-boundary`` (accepted calls honour the Frame and parameter contracts, rejected
calls are refused before the backend starts with a diagnostic naming the mismatch) and
``dlpack-allocation`` (a DLPack hand-off keeps the producer's allocation).

Facts are plain values a module records on its own device; judging them needs no GPU.
``pixtreme.core.Frame`` is imported only when a case is judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pixtreme.infer import Exact, StatelessModuleContract, TemporalModuleContract
from pixtreme.infer.verification._factory import AllocationIdentity
from pixtreme.infer.verification._results import (
    CheckResult,
    VerificationFinding,
    VerificationInputError,
    _expect,
    _finding,
    _judged_cases,
)

if TYPE_CHECKING:
    from pixtreme.core import Frame
    from pixtreme.infer import FrameContract, GpuArrayParamContract, ShapeProfile

FRAME_BOUNDARY = "frame-boundary"
DLPACK_ALLOCATION = "dlpack-allocation"

_Contract = StatelessModuleContract | TemporalModuleContract[object]


@dataclass(frozen=True)
class GpuArrayFacts:
    """One GPU array keyword argument as observed at the call: name, shape, dtype, device."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    device: str


@dataclass(frozen=True)
class FrameBoundaryFacts:
    """One call at the module boundary and what happened: output or error, backend started.

    ``expected`` says whether the case is meant to be accepted or rejected;
    ``dimension_bindings`` binds the contract's shape symbols (such as ``"H"``) for the call.
    """

    name: str
    expected: Literal["accept", "reject"]
    input_frame: Frame
    input_profile: ShapeProfile
    dimension_bindings: Mapping[str, int]
    params: tuple[GpuArrayFacts, ...]
    output_frame: Frame | None
    error: BaseException | None
    backend_started: bool


@dataclass(frozen=True)
class AllocationFacts:
    """Allocation identities on both sides of one DLPack hand-off.

    Zero copy means the consumer sees the producer's allocation and no conversion allocated.
    """

    name: str
    producer: AllocationIdentity
    consumer: AllocationIdentity
    conversion_allocations: tuple[AllocationIdentity, ...]


def _is_frame(value: object) -> bool:
    from pixtreme.core import Frame

    return isinstance(value, Frame)


def _device_label(frame: Frame) -> str:
    device = frame.data.device
    index = getattr(device, "id", None)
    return str(device) if index is None else f"cuda:{index}"


def _declared_channel_count(contract: FrameContract) -> int:
    field = contract.channels
    channels = field.value if isinstance(field, Exact) else field.reference
    return len(channels)


def _frame_findings(
    frame: Frame, contract: FrameContract, path: str, findings: list[VerificationFinding]
) -> None:
    """Compare every Exact field of ``contract`` with the Frame; unconstrained ones pass."""
    observed = {
        "channels": frame.channels,
        "colorspace": frame.colorspace,
        "gamma": frame.gamma,
        "matrix": frame.matrix,
        "dtype": str(frame.dtype),
    }
    for field, value in observed.items():
        declared = getattr(contract, field)
        if isinstance(declared, Exact):
            _expect(findings, f"{path}/{field}", value, declared.value)
    channel_count = frame.shape[2]
    _expect(findings, f"{path}/channel-count", channel_count, _declared_channel_count(contract))
    _expect(findings, f"{path}/metadata-channel-count", len(frame.channels), channel_count)


def _param_findings(
    case: FrameBoundaryFacts,
    declared: tuple[GpuArrayParamContract, ...],
    device: str,
    path: str,
    findings: list[VerificationFinding],
) -> None:
    observed_names = tuple(param.name for param in case.params)
    declared_names = tuple(param.name for param in declared)
    if len(set(observed_names)) != len(observed_names) or set(observed_names) != set(
        declared_names
    ):
        findings.append(
            _finding(
                "param-set-mismatch",
                f"{path}/params",
                observed_names,
                declared_names,
                "the call's GPU array keywords are not exactly the declared ones",
            )
        )
    by_name = {param.name: param for param in case.params}
    for contract in declared:
        seen = by_name.get(contract.name)
        if seen is None:
            continue
        shape = tuple(
            case.dimension_bindings.get(item) if isinstance(item, str) else item
            for item in contract.shape
        )
        where = f"{path}/params/{contract.name}"
        _expect(findings, f"{where}/shape", seen.shape, shape)
        _expect(findings, f"{where}/dtype", seen.dtype, contract.dtype)
        _expect(findings, f"{where}/device", seen.device, device)


def _input_findings(case: FrameBoundaryFacts, contract: _Contract) -> list[VerificationFinding]:
    """Everything about the request itself that violates the declared boundary."""
    path = f"{FRAME_BOUNDARY}/{case.name}"
    frame = case.input_frame
    if not _is_frame(frame):
        raise VerificationInputError(
            why="a frame-boundary case records the pixtreme.core.Frame it passed",
            what=f"{path}: input_frame is {type(frame).__name__}",
            how="record the Frame given to the module call",
        )
    findings: list[VerificationFinding] = []
    _frame_findings(frame, contract.input_frame, f"{path}/input", findings)
    height, width = frame.shape[0], frame.shape[1]
    profile = case.input_profile
    for index, (axis, size) in enumerate((("H", height), ("W", width))):
        bounds = (profile.min_hw[index], profile.max_hw[index])
        if not bounds[0] <= size <= bounds[1]:
            findings.append(
                _finding(
                    "shape-out-of-profile",
                    f"{path}/{axis}",
                    size,
                    bounds,
                    f"the input {axis} lies outside the shape profile",
                )
            )
        if axis in case.dimension_bindings:
            _expect(findings, f"{path}/bindings/{axis}", case.dimension_bindings[axis], size)
    _param_findings(case, contract.params, _device_label(frame), path, findings)
    return findings


def _accepted(
    case: FrameBoundaryFacts,
    contract: _Contract,
    problems: list[VerificationFinding],
    findings: list[VerificationFinding],
) -> None:
    path = f"{FRAME_BOUNDARY}/{case.name}"
    findings.extend(problems)
    _expect(findings, f"{path}/error", case.error, None)
    _expect(findings, f"{path}/backend-started", case.backend_started, True)
    output = case.output_frame
    if output is None:
        findings.append(
            _finding(
                "output-missing",
                f"{path}/output",
                None,
                "Frame",
                "an accepted call returned no Frame",
            )
        )
        return
    if not _is_frame(output):
        raise VerificationInputError(
            why="a frame-boundary case records the Frame the call returned, or None",
            what=f"{path}: output_frame is {type(output).__name__}",
            how="record the returned Frame (None when the call raised)",
        )
    source = case.input_frame
    _frame_findings(output, contract.output_frame, f"{path}/output", findings)
    scaled = (source.shape[0] * contract.scale, source.shape[1] * contract.scale)
    _expect(findings, f"{path}/output/shape", output.shape[:2], scaled)
    _expect(findings, f"{path}/output/device", _device_label(output), _device_label(source))


def _names_the_mismatch(error: BaseException, problems: list[VerificationFinding]) -> bool:
    message = str(error)
    return any(
        str(problem.observed) in message and str(problem.expected) in message
        for problem in problems
    )


def _rejected(
    case: FrameBoundaryFacts,
    problems: list[VerificationFinding],
    findings: list[VerificationFinding],
) -> None:
    path = f"{FRAME_BOUNDARY}/{case.name}"
    if not problems:
        findings.append(
            _finding(
                "invalid-case-missing",
                path,
                "contract-compatible",
                "incompatible input",
                "a reject case must violate the declared Frame or parameter boundary",
            )
        )
    _expect(findings, f"{path}/error", case.error is not None, True)
    if case.error is not None and problems and not _names_the_mismatch(case.error, problems):
        findings.append(
            _finding(
                "diagnostic-missing",
                f"{path}/error",
                str(case.error),
                tuple((problem.observed, problem.expected) for problem in problems),
                "the error names neither the observed input nor the accepted contract",
            )
        )
    _expect(findings, f"{path}/backend-started", case.backend_started, False)
    _expect(findings, f"{path}/output", case.output_frame, None)


def _judge_frame_boundaries(
    cases: tuple[FrameBoundaryFacts, ...], contract: _Contract
) -> CheckResult:
    """The ``frame-boundary`` check over every supplied case (unverified when none)."""
    findings: list[VerificationFinding] = []
    for case in cases:
        problems = _input_findings(case, contract)
        if case.expected == "accept":
            _accepted(case, contract, problems, findings)
        elif case.expected == "reject":
            _rejected(case, problems, findings)
        else:
            raise VerificationInputError(
                why="a frame-boundary case is either accepted or rejected",
                what=f"{FRAME_BOUNDARY}/{case.name}: expected={case.expected!r}",
                how="pass expected='accept' or expected='reject'",
            )
    return _judged_cases(FRAME_BOUNDARY, cases, findings)


def _judge_dlpack(cases: tuple[AllocationFacts, ...]) -> CheckResult:
    """The ``dlpack-allocation`` check: same allocation on both sides, nothing converted."""
    findings: list[VerificationFinding] = []
    for case in cases:
        path = f"{DLPACK_ALLOCATION}/{case.name}"
        _expect(
            findings,
            path,
            case.consumer,
            case.producer,
            "the DLPack hand-off changed the allocation",
        )
        if case.conversion_allocations:
            findings.append(
                _finding(
                    "conversion-allocated",
                    f"{path}/conversion-allocations",
                    tuple(case.conversion_allocations),
                    (),
                    "the hand-off allocated memory for a conversion (a copy, not zero copy)",
                )
            )
    return _judged_cases(DLPACK_ALLOCATION, cases, findings)

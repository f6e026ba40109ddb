"""The frame-boundary and dlpack-allocation checks (stand-in Frames, no GPU)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.verification.contracts import (
    CheckResult,
    FrameBoundaryFacts,
    VerificationInputError,
    verify_module_contract,
)

if TYPE_CHECKING:
    from conftest import Builders

pytestmark = pytest.mark.req("spec.verification.frame-boundary")


def _judge(build: Builders, *cases: FrameBoundaryFacts) -> CheckResult:
    report = verify_module_contract(build.stateless_suite(frame_boundaries=lambda: cases))
    return report.check("frame-boundary")


def _codes(check: CheckResult) -> list[tuple[str, str]]:
    return [(finding.code, finding.path) for finding in check.findings]


def test_accepted_and_rejected_cases_that_honour_the_contract_pass(build: Builders) -> None:
    check = _judge(build, build.accepted(), build.rejected())
    assert (check.status, check.findings) == ("passed", ())


def test_an_unconstrained_field_may_take_another_valid_value(build: Builders) -> None:
    frame = build.frame(gamma="linear")
    check = _judge(build, build.accepted(input_frame=frame, output_frame=build.frame(64, 96)))
    assert check.status == "passed"


@pytest.mark.req("spec.verification.missing-evidence-unverified")
def test_no_cases_leave_the_check_unverified(build: Builders) -> None:
    check = _judge(build)
    assert check.status == "unverified"
    (finding,) = check.findings
    assert (finding.code, finding.path, finding.observed, finding.expected) == (
        "evidence-missing",
        "frame-boundary",
        0,
        ">=1",
    )


_P = "frame-boundary/accept"

_ACCEPT_DEFECTS = [
    pytest.param(
        lambda b: {"input_frame": b.frame(colorspace="Rec.709")},
        [("contract-mismatch", f"{_P}/input/colorspace")],
        id="input-colorspace",
    ),
    pytest.param(
        lambda b: {"input_frame": b.frame(dtype="float16")},
        [("contract-mismatch", f"{_P}/input/dtype")],
        id="input-dtype",
    ),
    pytest.param(
        lambda b: {"input_frame": b.frame(channels=("R", "G", "B", "A"))},
        [
            ("contract-mismatch", f"{_P}/input/channels"),
            ("contract-mismatch", f"{_P}/input/channel-count"),
        ],
        id="input-channels",
    ),
    pytest.param(
        lambda b: {"input_frame": b.frame(components=4)},
        [
            ("contract-mismatch", f"{_P}/input/channel-count"),
            ("contract-mismatch", f"{_P}/input/metadata-channel-count"),
        ],
        id="input-labels-vs-data",
    ),
    pytest.param(
        lambda b: {"dimension_bindings": {"H": 31, "W": 48}},
        # the wrong binding is also what the parameter's "H" is checked against
        [
            ("contract-mismatch", f"{_P}/bindings/H"),
            ("contract-mismatch", f"{_P}/params/strength/shape"),
        ],
        id="dimension-binding",
    ),
    pytest.param(
        lambda b: {"params": ()}, [("param-set-mismatch", f"{_P}/params")], id="param-missing"
    ),
    pytest.param(
        lambda b: {"params": (b.param(), b.param())},
        [("param-set-mismatch", f"{_P}/params")],
        id="param-duplicate",
    ),
    pytest.param(
        lambda b: {"params": (b.param(), b.param(name="mask"))},
        [("param-set-mismatch", f"{_P}/params")],
        id="param-undeclared",
    ),
    pytest.param(
        lambda b: {"params": (b.param(31, 48),)},
        [("contract-mismatch", f"{_P}/params/strength/shape")],
        id="param-shape",
    ),
    pytest.param(
        lambda b: {"params": (b.param(dtype="float16"),)},
        [("contract-mismatch", f"{_P}/params/strength/dtype")],
        id="param-dtype",
    ),
    pytest.param(
        lambda b: {"params": (b.param(device="cuda:1"),)},
        [("contract-mismatch", f"{_P}/params/strength/device")],
        id="param-device",
    ),
    pytest.param(
        lambda b: {"error": RuntimeError("boom")},
        [("contract-mismatch", f"{_P}/error")],
        id="error-raised",
    ),
    pytest.param(
        lambda b: {"backend_started": False},
        [("contract-mismatch", f"{_P}/backend-started")],
        id="backend-not-started",
    ),
    pytest.param(
        lambda b: {"output_frame": None}, [("output-missing", f"{_P}/output")], id="no-output"
    ),
    pytest.param(
        lambda b: {"output_frame": b.frame(32, 48)},
        [("contract-mismatch", f"{_P}/output/shape")],
        id="output-not-scaled",
    ),
    pytest.param(
        lambda b: {"output_frame": b.frame(64, 96, device=b.device(1))},
        [("contract-mismatch", f"{_P}/output/device")],
        id="output-other-device",
    ),
    pytest.param(
        lambda b: {"output_frame": b.frame(64, 96, colorspace="Rec.709", matrix="BT.709")},
        [
            ("contract-mismatch", f"{_P}/output/colorspace"),
            ("contract-mismatch", f"{_P}/output/matrix"),
        ],
        id="output-metadata",
    ),
]


@pytest.mark.parametrize(("defect", "expected"), _ACCEPT_DEFECTS)
def test_an_accepted_call_that_breaks_the_contract_fails(
    build: Builders,
    defect: Callable[[Builders], dict[str, Any]],
    expected: list[tuple[str, str]],
) -> None:
    check = _judge(build, build.accepted(**defect(build)))
    assert (check.status, _codes(check)) == ("failed", expected)


def test_a_mismatch_finding_holds_the_observed_and_declared_values(build: Builders) -> None:
    binding, shape = _judge(build, build.accepted(dimension_bindings={"H": 31, "W": 48})).findings
    assert (binding.observed, binding.expected) == (31, 32)
    assert (shape.observed, shape.expected) == ((32, 48), (31, 48))


def test_outside_the_shape_profile_names_the_axis_and_the_bounds(build: Builders) -> None:
    small = build.accepted(
        input_frame=build.frame(8, 48),
        dimension_bindings={"H": 8, "W": 48},
        params=(build.param(8, 48),),
        output_frame=build.frame(16, 96),
    )
    (finding,) = _judge(build, small).findings
    assert (finding.code, finding.path, finding.observed, finding.expected) == (
        "shape-out-of-profile",
        f"{_P}/H",
        8,
        (16, 64),
    )


def test_a_param_shape_symbol_without_a_binding_is_compared_as_unbound(
    build: Builders,
) -> None:
    (finding,) = _judge(build, build.accepted(dimension_bindings={})).findings
    assert (finding.path, finding.observed, finding.expected) == (
        f"{_P}/params/strength/shape",
        (32, 48),
        (None, None),
    )


def test_a_device_without_an_index_is_labelled_by_its_text(build: Builders) -> None:
    case = build.accepted(
        input_frame=build.frame(device="cpu"),
        params=(build.param(device="cpu"),),
        output_frame=build.frame(64, 96, device="cpu"),
    )
    assert _judge(build, case).status == "passed"


_R = "frame-boundary/reject"

_REJECT_DEFECTS = [
    pytest.param(
        lambda b: {"input_frame": b.frame()}, [("invalid-case-missing", _R)], id="compatible"
    ),
    pytest.param(lambda b: {"error": None}, [("contract-mismatch", f"{_R}/error")], id="no-error"),
    pytest.param(
        lambda b: {"error": ValueError("bad input")},
        [("diagnostic-missing", f"{_R}/error")],
        id="error-without-values",
    ),
    pytest.param(
        lambda b: {"backend_started": True},
        [("contract-mismatch", f"{_R}/backend-started")],
        id="backend-started",
    ),
    pytest.param(
        lambda b: {"output_frame": b.frame(64, 96)},
        [("contract-mismatch", f"{_R}/output")],
        id="output-returned",
    ),
]


@pytest.mark.parametrize(("defect", "expected"), _REJECT_DEFECTS)
def test_a_rejected_call_must_be_refused_early_with_a_diagnostic(
    build: Builders,
    defect: Callable[[Builders], dict[str, Any]],
    expected: list[tuple[str, str]],
) -> None:
    check = _judge(build, build.rejected(**defect(build)))
    assert (check.status, _codes(check)) == ("failed", expected)


def test_a_param_violation_can_be_the_reason_for_a_rejection(build: Builders) -> None:
    case = build.rejected(
        input_frame=build.frame(),
        params=(build.param(dtype="int8"),),
        error=ValueError("strength dtype int8, expected float32"),
    )
    assert _judge(build, case).status == "passed"


def test_the_diagnostic_finding_lists_what_the_error_should_name(build: Builders) -> None:
    (finding,) = _judge(build, build.rejected(error=ValueError("bad input"))).findings
    assert finding.observed == "bad input"
    assert finding.expected == (("Rec.709", "sRGB"),)


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        ({"expected": "maybe"}, "expected='maybe'"),
        ({"input_frame": "not a frame"}, "input_frame is str"),
        ({"output_frame": "not a frame"}, "output_frame is str"),
    ],
    ids=["expected", "input-type", "output-type"],
)
def test_malformed_cases_raise_verification_input_error(
    build: Builders, overrides: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        _judge(build, build.accepted(**overrides))


def _dlpack(build: Builders, **overrides: Any) -> CheckResult:
    suite = build.stateless_suite(dlpack_allocations=lambda: (build.allocation(**overrides),))
    return verify_module_contract(suite).check("dlpack-allocation")


@pytest.mark.req("spec.verification.dlpack-zero-copy")
def test_a_zero_copy_hand_off_passes(build: Builders) -> None:
    assert _dlpack(build).status == "passed"


@pytest.mark.req("spec.verification.dlpack-zero-copy")
@pytest.mark.parametrize(
    ("overrides", "code", "path"),
    [
        ({"consumer": ("cuda:0", 8192)}, "contract-mismatch", "dlpack-allocation/frame"),
        (
            {"conversion_allocations": (("cuda:0", 8192),)},
            "conversion-allocated",
            "dlpack-allocation/frame/conversion-allocations",
        ),
    ],
    ids=["other-allocation", "conversion-copy"],
)
def test_a_copy_fails_the_zero_copy_check(
    build: Builders, overrides: dict[str, Any], code: str, path: str
) -> None:
    check = _dlpack(build, **overrides)
    assert check.status == "failed"
    assert [(finding.code, finding.path) for finding in check.findings] == [(code, path)]


def test_no_dlpack_cases_leave_the_check_unverified(build: Builders) -> None:
    suite = build.stateless_suite(dlpack_allocations=lambda: ())
    assert verify_module_contract(suite).check("dlpack-allocation").status == "unverified"


@pytest.mark.gpu
def test_a_real_frame_on_the_gpu_is_judged_by_its_device(build: Builders) -> None:
    import cupy as cp
    from pixtreme.core import Frame

    def real(height: int, width: int) -> Frame:
        data = cp.zeros((height, width, 3), dtype=cp.float32)
        return Frame(data=data, colorspace="sRGB", gamma="sRGB", channels="RGB")

    device = f"cuda:{cp.cuda.Device().id}"
    case = build.accepted(
        input_frame=real(32, 48),
        output_frame=real(64, 96),
        params=(build.param(device=device),),
    )
    assert _judge(build, case).status == "passed"

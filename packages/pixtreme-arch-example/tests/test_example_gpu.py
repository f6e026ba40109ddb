"""On a CUDA GPU: CuPy kernels against the numpy reference, the Frame boundary, DLPack zero
copy, factory and temporal lifecycle, CUDA Graph replay, and the published GPU evidence."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pixtreme.infer.example import (
    RECURSIVE_FILTER,
    RECURSIVE_FILTER_RECIPE,
    UPSCALE_X2,
    UPSCALE_X2_RECIPE,
    ClosedInstanceError,
    RecursiveFilterFactory,
    UpscaleX2Factory,
    load_weights,
    recursive_filter_reference,
    upscale_x2_reference,
)

pytestmark = pytest.mark.gpu

SIZES = [(1, 1), (3, 5), (64, 97)]
TOLERANCE = 1e-5


def _frame(image: np.ndarray, colorspace: str = "sRGB", gamma: str = "sRGB") -> Any:
    import cupy
    from pixtreme.core import Frame

    return Frame(
        data=cupy.asarray(image), channels="RGB", colorspace=colorspace, gamma=gamma, matrix=None
    )


def _image(seed: int, hw: tuple[int, int]) -> np.ndarray:
    return np.random.default_rng(seed).random((*hw, 3), dtype=np.float32)


@pytest.fixture
def stream() -> Any:
    import cupy

    with cupy.cuda.Stream(non_blocking=True) as current:
        yield current
        current.synchronize()


@pytest.mark.parametrize("hw", SIZES, ids=str)
def test_cupy_upscaler_kernel_matches_the_reference(hw: tuple[int, int], stream: Any) -> None:
    import cupy
    from pixtreme.infer.example._cupy_backend import CupyUpscaleX2

    image = _image(1, hw)
    unit = CupyUpscaleX2(load_weights(UPSCALE_X2), input_hw=hw)
    output = cupy.empty((2 * hw[0], 2 * hw[1], 3), cupy.float32)
    unit.enqueue(cupy.asarray(image), output)
    stream.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(output), upscale_x2_reference(image), atol=TOLERANCE)


@pytest.mark.parametrize("hw", SIZES, ids=str)
def test_cupy_recursive_filter_matches_the_reference(hw: tuple[int, int], stream: Any) -> None:
    import cupy
    from pixtreme.infer.example._cupy_backend import CupyRecursiveFilter

    images = [_image(10 + index, hw) for index in range(5)]
    restarts = [True, False, False, True, False]
    expected = recursive_filter_reference(images, restarts)
    unit = CupyRecursiveFilter(load_weights(RECURSIVE_FILTER), input_hw=hw)
    for image, restart, reference in zip(images, restarts, expected, strict=True):
        output = cupy.empty((*hw, 3), cupy.float32)
        unit.enqueue(cupy.asarray(image), output, restart=restart)
        np.testing.assert_allclose(cupy.asnumpy(output), reference, atol=TOLERANCE)


@pytest.mark.parametrize("graphs", [False, True], ids=["normal", "cuda-graph"])
def test_upscaler_instance_frame_boundary(graphs: bool, stream: Any) -> None:
    factory = UpscaleX2Factory()
    if graphs:
        factory = factory.graph_factory()
    instance = factory.open(UPSCALE_X2_RECIPE, precision="fp32", input_hw=(6, 9))
    image = _image(2, (6, 9))
    frame = _frame(image, colorspace="Rec.709", gamma="linear")
    result = instance(frame)
    assert (result.height, result.width) == (12, 18)
    assert (result.colorspace, result.gamma, result.channels) == (
        "Rec.709",
        "linear",
        ("R", "G", "B"),
    )
    assert result.data.data.ptr != frame.data.data.ptr
    import cupy

    np.testing.assert_allclose(
        cupy.asnumpy(result.data), upscale_x2_reference(image), atol=TOLERANCE
    )
    instance.close()
    instance.close()
    with pytest.raises(ClosedInstanceError):
        instance(frame)


def test_boundary_imports_frames_without_copying(stream: Any) -> None:
    from pixtreme.infer.example._instances import import_frame_data

    frame = _frame(_image(3, (4, 4)))
    assert import_frame_data(frame).data.ptr == frame.data.data.ptr


@pytest.mark.parametrize("graphs", [False, True], ids=["normal", "cuda-graph"])
def test_temporal_instance_sequence_reset_and_isolation(graphs: bool, stream: Any) -> None:
    import cupy

    factory = RecursiveFilterFactory()
    if graphs:
        factory = factory.graph_factory()
    hw = (5, 8)
    images = [_image(20 + index, hw) for index in range(6)]
    resets = [False, False, True, False, False, False]
    expected = recursive_filter_reference(images, resets)
    first = factory.open(RECURSIVE_FILTER_RECIPE, precision="fp32", input_hw=hw)
    second = factory.open(RECURSIVE_FILTER_RECIPE, precision="fp32", input_hw=hw)
    other = _image(99, hw)
    for image, reset, reference in zip(images, resets, expected, strict=True):
        result = first(_frame(image), reset=reset)
        second(_frame(other))  # an interleaved instance must not disturb the first
        np.testing.assert_allclose(cupy.asnumpy(result.data), reference, atol=TOLERANCE)
    first.close()
    second.close()


def test_graph_outputs_survive_later_replays(stream: Any) -> None:
    import cupy

    instance = (
        UpscaleX2Factory()
        .graph_factory()
        .open(UPSCALE_X2_RECIPE, precision="fp32", input_hw=(4, 4))
    )
    first_image, second_image = _image(5, (4, 4)), _image(6, (4, 4))
    first = instance(_frame(first_image))
    instance(_frame(second_image))
    stream.synchronize()
    np.testing.assert_allclose(
        cupy.asnumpy(first.data), upscale_x2_reference(first_image), atol=TOLERANCE
    )
    instance.close()


def test_published_gpu_evidence_passes() -> None:
    from pixtreme.infer.example import verification_cases
    from pixtreme.infer.example._tensorrt_backend import tensorrt_unavailable_reason
    from pixtreme.infer.verification import verify_cases

    reports = {report.scope: report for report in verify_cases(verification_cases())}
    tensorrt = tensorrt_unavailable_reason() is None  # engine checks are expected to pass too
    engine_checks = ("engine-round-trip", "engine-incompatibility") if tensorrt else ()
    module_checks = (
        "frame-boundary",
        "dlpack-allocation",
        *engine_checks,
        "checkpoint-selector-rejection",
        "query-gpu-allocation",
        "opened-contract",
        "closed-inference",
    )
    temporal_checks = (
        "reset-equivalence",
        "reset-continuation",
        "instance-isolation",
        "state-footprint",
    )
    expected = {
        "example/module-contract/0": module_checks,
        "example/module-contract/1": module_checks + temporal_checks,
        "example/cuda-graph-contract/2": (*module_checks, "graph-replay-equivalence"),
        "example/cuda-graph-contract/3": (
            *module_checks,
            *temporal_checks,
            "graph-replay-equivalence",
        ),
        "example/backends": (
            "cupy-upscale-x2-reference",
            "cupy-recursive-filter-reference",
            *(
                ("tensorrt-upscale-x2-reference", "tensorrt-recursive-filter-reference")
                if tensorrt
                else ()
            ),
        ),
    }
    # Every check's status and first finding, shown by `pytest -rA` on the device run.
    for scope, report in reports.items():
        for check in report.checks:
            first = check.findings[0] if check.findings else None
            print(f"{scope} {check.name}: {check.status} {first or ''}")
    not_passed = [
        (scope, name, reports[scope].check(name).status, reports[scope].check(name).findings)
        for scope, names in expected.items()
        for name in names
        if reports[scope].check(name).status != "passed"
    ]
    assert not_passed == []


def test_harvested_frame_boundary_rejects_before_the_backend() -> None:
    from pixtreme.infer.example._verification import evidence_subject
    from pixtreme.infer.verification.evidence import frame_boundary_facts

    for factory in (UpscaleX2Factory(), RecursiveFilterFactory()):
        facts = {fact.name: fact for fact in frame_boundary_facts(evidence_subject(factory))}
        assert facts["reference"].backend_started
        assert facts["any-colorspace"].output_frame is not None
        for name in ("other-height", "other-width", "other-channels", "other-dtype"):
            assert facts[name].error is not None, name
            assert not facts[name].backend_started, name

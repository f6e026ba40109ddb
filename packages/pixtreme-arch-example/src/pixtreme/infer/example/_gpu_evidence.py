"""Evidence gathered on a CUDA GPU for the published verification cases.

Each function opens real instances from a factory, runs them on an explicit non-default stream
and returns the core's fact record. Where no GPU (or no TensorRT) is usable it raises the core's
EvidenceUnavailable, so the check is reported unverified with the reason, never passed.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.frames import frame_metadata
from pixtreme.infer.recipes import RecipeIdentity
from pixtreme.infer.verification import (
    ClosedInferenceFacts,
    DlpackAllocationFacts,
    EngineRoundTripFacts,
    FrameBoundaryFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionCase,
    RejectionFacts,
    ResourceSnapshot,
    SequenceFacts,
    SequenceStep,
    StateLifecycleFacts,
)

from ._errors import engine_error
from ._factories import RecursiveFilterFactory, UpscaleX2Factory
from ._instances import import_frame_data
from ._networks import NETWORKS
from ._reference import recursive_filter_reference, upscale_x2_reference
from ._tensorrt_backend import (
    EngineDeclaration,
    engine_declaration,
    tensorrt_unavailable_reason,
)

if TYPE_CHECKING:
    from pixtreme.core import Frame

#: The input size every GPU check opens (small, odd width to catch indexing mistakes).
VERIFY_HW: Final = (12, 21)
#: Largest difference accepted between a GPU output and the float64 numpy reference.
REFERENCE_TOLERANCE: Final = 1e-5

Factory = UpscaleX2Factory | RecursiveFilterFactory


@dataclass(frozen=True, slots=True, kw_only=True)
class Subject:
    """One factory and the recipe it opens, as the evidence functions use them."""

    factory: Factory
    recipe: RecipeIdentity

    @property
    def temporal(self) -> bool:
        """Whether the factory is temporal."""
        return isinstance(self.factory, RecursiveFilterFactory)

    def open(self) -> Any:
        """Open one instance at VERIFY_HW, fp32."""
        return self.factory.open(self.recipe, precision="fp32", input_hw=VERIFY_HW)


@functools.cache
def gpu_unavailable_reason() -> str | None:
    """Why no CUDA GPU is usable through CuPy here, or None."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
        return "CUDA_VISIBLE_DEVICES is empty"
    try:
        import cupy

        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:
        return f"the CUDA runtime reports {type(error).__name__}: {error}"
    return None if count > 0 else "the CUDA runtime reports 0 devices"


def _require_gpu() -> Any:
    reason = gpu_unavailable_reason()
    if reason is not None:
        raise EvidenceUnavailable(
            why="this evidence runs the example on a CUDA GPU",
            what=f"no usable GPU: {reason}",
            how="run `pixtreme-infer verify example` on a machine with an NVIDIA GPU and CuPy",
        )
    import cupy

    return cupy


def _require_tensorrt() -> None:
    _require_gpu()
    reason = tensorrt_unavailable_reason()
    if reason is not None:
        raise EvidenceUnavailable(
            why="this evidence builds and loads TensorRT engines through tensoracle",
            what=reason,
            how="install tensorrt-cu13 from NVIDIA's package index on a GPU machine",
        )


@contextmanager
def _stream() -> Iterator[Any]:
    cupy = _require_gpu()
    with cupy.cuda.Stream(non_blocking=True) as stream:
        yield stream
        stream.synchronize()


def _host_image(seed: int, hw: tuple[int, int] = VERIFY_HW) -> np.ndarray:
    return np.random.default_rng(seed).random((*hw, 3), dtype=np.float32)


def _frame(image: np.ndarray, *, colorspace: str = "sRGB", gamma: str = "sRGB") -> Frame:
    import cupy
    from pixtreme.core import Frame

    return Frame(
        data=cupy.asarray(image),
        channels=("R", "G", "B"),
        colorspace=colorspace,
        gamma=gamma,
        matrix=None,
    )


def _host(frame: Frame) -> np.ndarray:
    import cupy

    return np.asarray(cupy.asnumpy(frame.data))


def _used_bytes() -> int:
    cupy = _require_gpu()
    # Graph instances hold reference cycles (operations -> instance); collect them first so a
    # closed instance's storage is really back in the pool.
    gc.collect()
    cupy.cuda.get_current_stream().synchronize()
    return int(cupy.get_default_memory_pool().used_bytes())


def _step(label: str, a: np.ndarray, b: np.ndarray, tolerance: float = 0.0) -> SequenceStep:
    difference = np.abs(a.astype(np.float64) - b.astype(np.float64))
    worst = float(difference.max()) if np.all(np.isfinite(difference)) else float("inf")
    return SequenceStep(label=label, max_abs_difference=worst, tolerance=tolerance)


def frame_boundary(subject: Subject) -> FrameBoundaryFacts:
    """Open, call once with a non-reference colorspace/gamma, record the output's metadata."""
    with _stream():
        instance = subject.open()
        try:
            output = instance(_frame(_host_image(1), colorspace="Rec.709", gamma="linear"))
        finally:
            instance.close()
    contract = instance.contract
    return FrameBoundaryFacts(
        contract=contract.output_frame,
        observed=frame_metadata(output),
        observed_hw=(output.height, output.width),
        expected_hw=contract.output_hw,
    )


def dlpack_allocation(subject: Subject) -> DlpackAllocationFacts:
    """Pointers of a caller's Frame and of the array the module's boundary imports."""
    with _stream():
        frame = _frame(_host_image(2))
        imported = import_frame_data(frame)
    return DlpackAllocationFacts(
        source_pointer=int(frame.data.data.ptr), imported_pointer=int(imported.data.ptr)
    )


def query_allocation(subject: Subject) -> QueryAllocationFacts:
    """GPU memory in use around query_contract."""
    before = _used_bytes()
    subject.factory.query_contract(subject.recipe, precision="fp32", input_hw=VERIFY_HW)
    return QueryAllocationFacts(bytes_before=before, bytes_after=_used_bytes())


def opened_contract(subject: Subject) -> OpenedContractFacts:
    """The queried module contract and the opened instance's contract."""
    queried = subject.factory.query_contract(subject.recipe, precision="fp32", input_hw=VERIFY_HW)
    with _stream():
        instance = subject.open()
        instance.close()
    return OpenedContractFacts(queried=queried.module_contract, opened=instance.contract)


def closed_inference(subject: Subject) -> ClosedInferenceFacts:
    """close() twice, then a call that must be rejected before GPU work."""
    with _stream():
        instance = subject.open()
        frame = _frame(_host_image(3))
        instance.close()
        try:
            instance.close()
            second: str | None = None
        except Exception as error:
            second = f"{type(error).__name__}: {error}"
        call = RejectionCase.from_call("call-after-close", lambda: instance(frame))
    return ClosedInferenceFacts(second_close_error=second, call_after_close=call)


def request_rejection(subject: Subject) -> RejectionFacts:
    """Bad requests to an opened instance: each must raise before any GPU work."""
    with _stream():
        instance = subject.open()
        try:
            good = _host_image(4)
            cases = [
                RejectionCase.from_call("not-a-frame", lambda: instance(good)),
                RejectionCase.from_call(
                    "undeclared-keyword", lambda: instance(_frame(good), strength=1.0)
                ),
                RejectionCase.from_call(
                    "wrong-size", lambda: instance(_frame(_host_image(5, (VERIFY_HW[0], 7))))
                ),
                RejectionCase.from_call(
                    "wrong-dtype", lambda: instance(_frame(good.astype(np.float16)))
                ),
            ]
            if subject.temporal:
                cases.append(
                    RejectionCase.from_call(
                        "reset-not-bool", lambda: instance(_frame(good), reset="yes")
                    )
                )
        finally:
            instance.close()
    return RejectionFacts(cases=tuple(cases))


def _run_sequence(
    instance: Any, images: Sequence[np.ndarray], resets: Sequence[bool]
) -> list[np.ndarray]:
    outputs = []
    for image, reset in zip(images, resets, strict=True):
        frame = _frame(image)
        result = instance(frame, reset=reset) if reset else instance(frame)
        outputs.append(_host(result))
    return outputs


def reference_sequence(subject: Subject) -> SequenceFacts:
    """Outputs over a sequence with resets against the numpy reference."""
    images = [_host_image(10 + index) for index in range(6)]
    resets = [False, False, False, True, False, False] if subject.temporal else [False] * 6
    with _stream():
        instance = subject.open()
        try:
            outputs = _run_sequence(instance, images, resets)
        finally:
            instance.close()
    if subject.temporal:
        expected = recursive_filter_reference(images, resets)
    else:
        expected = [upscale_x2_reference(image) for image in images]
    return SequenceFacts(
        steps=tuple(
            _step(f"call-{index}{'-reset' if reset else ''}", out, ref, REFERENCE_TOLERANCE)
            for index, (out, ref, reset) in enumerate(zip(outputs, expected, resets, strict=True))
        )
    )


def reset_equivalence(subject: Subject) -> SequenceFacts:
    """After reset, an instance with history equals a fresh instance on the same frames."""
    prefix = [_host_image(20 + index) for index in range(3)]
    tail = [_host_image(30 + index) for index in range(3)]
    with _stream():
        used = subject.open()
        fresh = subject.open()
        try:
            _run_sequence(used, prefix, [False] * 3)
            after_reset = _run_sequence(used, tail, [True, False, False])
            from_start = _run_sequence(fresh, tail, [False] * 3)
        finally:
            used.close()
            fresh.close()
    return SequenceFacts(
        steps=tuple(
            _step(f"tail-{index}", a, b)
            for index, (a, b) in enumerate(zip(after_reset, from_start, strict=True))
        )
    )


def instance_isolation(subject: Subject) -> IsolationFacts:
    """Two instances called in turn equal the same two sequences run one after the other."""
    first = [_host_image(40 + index) for index in range(4)]
    second = [_host_image(50 + index) for index in range(4)]
    flags = [False] * 4
    with _stream():
        a, b = subject.open(), subject.open()
        try:
            interleaved_a, interleaved_b = [], []
            for image_a, image_b in zip(first, second, strict=True):
                interleaved_a.extend(_run_sequence(a, [image_a], [False]))
                interleaved_b.extend(_run_sequence(b, [image_b], [False]))
        finally:
            a.close()
            b.close()
        alone_a = subject.open()
        try:
            separate_a = _run_sequence(alone_a, first, flags)
        finally:
            alone_a.close()
        alone_b = subject.open()
        try:
            separate_b = _run_sequence(alone_b, second, flags)
        finally:
            alone_b.close()
    steps = [
        _step(f"a-{index}", x, y)
        for index, (x, y) in enumerate(zip(interleaved_a, separate_a, strict=True))
    ] + [
        _step(f"b-{index}", x, y)
        for index, (x, y) in enumerate(zip(interleaved_b, separate_b, strict=True))
    ]
    return IsolationFacts(instances=2, sequence=SequenceFacts(steps=tuple(steps)))


def state_lifecycle(subject: Subject) -> StateLifecycleFacts:
    """GPU memory over one temporal instance's life against its declared footprint."""
    images = [_host_image(60 + index) for index in range(3)]
    with _stream():
        before = _used_bytes()
        instance = subject.open()
        after_open = _used_bytes()
        _run_sequence(instance, images, [False] * 3)
        after_calls = _used_bytes()
        _run_sequence(instance, images[:1], [True])
        after_reset = _used_bytes()
        declared = instance.contract.state_footprint
        instance.close()
        del instance
        after_close = _used_bytes()
    return StateLifecycleFacts(
        declared=declared,
        before_open=ResourceSnapshot(label="before-open", gpu_bytes=before),
        after_open=ResourceSnapshot(label="after-open", gpu_bytes=after_open),
        after_calls=ResourceSnapshot(label="after-calls", gpu_bytes=after_calls),
        after_reset=ResourceSnapshot(label="after-reset", gpu_bytes=after_reset),
        after_close=ResourceSnapshot(label="after-close", gpu_bytes=after_close),
    )


def graph_replay_equivalence(subject: Subject, graph_subject: Subject) -> SequenceFacts:
    """A graph instance against a normal instance: first call, continuation, changed values
    and metadata, and resets."""
    images = [_host_image(70 + index) for index in range(6)]
    resets = [False, False, True, False, False, True] if subject.temporal else [False] * 6
    spaces = [("sRGB", "sRGB"), ("sRGB", "sRGB"), ("Rec.709", "linear")] * 2
    with _stream():
        normal, graph = subject.open(), graph_subject.open()
        steps = []
        try:
            for index, (image, reset, (space, gamma)) in enumerate(
                zip(images, resets, spaces, strict=True)
            ):
                frame = _frame(image, colorspace=space, gamma=gamma)
                kwargs = {"reset": True} if reset else {}
                expected, observed = normal(frame, **kwargs), graph(frame, **kwargs)
                same_metadata = frame_metadata(expected) == frame_metadata(observed)
                step = _step(f"call-{index}", _host(expected), _host(observed))
                if not same_metadata:
                    step = SequenceStep(label=f"call-{index}-metadata", max_abs_difference=1.0)
                steps.append(step)
        finally:
            normal.close()
            graph.close()
    return SequenceFacts(steps=tuple(steps))


_PROBE = (
    "import sys; from pixtreme.infer.example._tensorrt_backend import engine_probe_main; "
    "engine_probe_main(sys.argv[1:])"
)


def _probe(network: str, *, rebuild: bool, cache: Path) -> dict[str, Any]:
    mode = "rebuild" if rebuild else "load"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, network, mode],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        timeout=600,
    )
    if result.returncode != 0:
        tail = " | ".join(result.stderr.strip().splitlines()[-12:])
        raise engine_error(
            why="the engine round trip opens the engine in two separate processes",
            what=f"the `{network} {mode}` probe exited with status {result.returncode}: {tail}",
            how=f'run `{sys.executable} -c "{_PROBE}" {network} {mode}` to see the whole '
            "error (TensorRT, CUDA or the engine cache)",
        )
    record: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return record


def engine_round_trip(network: str) -> EngineRoundTripFacts:
    """Serialize an engine in one process and load it in another (separate cache dir)."""
    _require_tensorrt()
    with tempfile.TemporaryDirectory(prefix="pixtreme-example-engines-") as cache:
        built = _probe(network, rebuild=True, cache=Path(cache))
        loaded = _probe(network, rebuild=False, cache=Path(cache))
    return EngineRoundTripFacts(
        serialized_sha256=built["sha256"],
        loaded_sha256=loaded["sha256"],
        serialize_pid=built["pid"],
        load_pid=loaded["pid"],
    )


def damaged_engine_files(original: bytes, other: bytes) -> tuple[tuple[str, bytes], ...]:
    """Replacements for a cached engine file that must be rejected, each differing from it.

    ``other`` is the cached file of an engine built under other conditions. The plan's last
    bytes are inverted, not overwritten: a plan that already ends in zeros must still change.
    """
    tail = bytes(byte ^ 0xFF for byte in original[-64:])
    return (
        ("corrupt-plan", original[:-64] + tail),
        ("truncated-file", original[: len(original) // 2]),
        ("foreign-file", b"not a tensoracle engine"),
        ("other-conditions", other),
    )


def _cached_engine(declaration: EngineDeclaration) -> Path:
    """Build (or reuse) the engine in the current cache and return its cached file."""
    from ._tensorrt_backend import TensorRTEngineRunner

    runner = TensorRTEngineRunner(declaration)
    runner.close()
    return runner.engine_path


def engine_incompatibility(network: str) -> RejectionFacts:
    """A corrupt, truncated or foreign cached engine, and one built for other conditions
    (another input size), are rejected with the error shape."""
    _require_tensorrt()
    from ._tensorrt_backend import TensorRTEngineRunner

    declaration = engine_declaration(NETWORKS[network], input_hw=VERIFY_HW)
    other_size = (VERIFY_HW[0], VERIFY_HW[1] + 1)
    previous = os.environ.get("XDG_CACHE_HOME")
    cases = []
    with tempfile.TemporaryDirectory(prefix="pixtreme-example-engines-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            path = _cached_engine(declaration)
            other = _cached_engine(engine_declaration(NETWORKS[network], input_hw=other_size))
            for label, damaged in damaged_engine_files(path.read_bytes(), other.read_bytes()):
                path.write_bytes(damaged)
                cases.append(
                    RejectionCase.from_call(label, lambda: TensorRTEngineRunner(declaration))
                )
        finally:
            if previous is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = previous
    return RejectionFacts(cases=tuple(cases))


def tensorrt_reference(subject: Subject) -> SequenceFacts:
    """The TensorRT backend over a sequence with resets against the numpy reference."""
    _require_tensorrt()
    factory_type = type(subject.factory)
    tensorrt = Subject(factory=factory_type(backend="tensorrt"), recipe=subject.recipe)
    return reference_sequence(tensorrt)


def engine_sha256(path: Path) -> str:
    """sha256 of a cached engine file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bind(function: Callable[[Subject], Any], subject: Subject) -> Callable[[], Any]:
    """A zero-argument evidence callable for ``subject``."""
    return functools.partial(function, subject)

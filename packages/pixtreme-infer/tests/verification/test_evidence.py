"""The evidence harvesters on a pure-Python stand-in world, and (GPU) on real Frames.

The CPU tests use small factories whose "device" is a Python allocation table and whose
"frames" hold numpy pixels behind a CUDA Array Interface-shaped dictionary. Nothing of CuPy is
imported or replaced: the harvesters only call the factory protocols, the FrameSource, the
ResourceProbe and the environment they are given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import itertools
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from pixtreme.infer.contracts import (
    Exact,
    FrameContract,
    GpuArrayParamContract,
    StateFootprint,
    StatelessFamilyContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalOpenContract,
    UnconstrainedWithReference,
    validate_call_params,
)
from pixtreme.infer.errors import ContractError, EvidenceUnavailable
from pixtreme.infer.frames import metadata_mismatches
from pixtreme.infer.verification import evidence as ev
from pixtreme.infer.verification.contracts import (
    EngineRoundTripFacts,
    ResourceSnapshot,
    TemporalContractSuite,
    VerificationReport,
    verify_cuda_graph_contract,
    verify_module_contract,
)

RGB = FrameContract(
    Exact(("R", "G", "B")),
    UnconstrainedWithReference("sRGB"),
    UnconstrainedWithReference("sRGB"),
    Exact(None),
    Exact("float32"),
)
HW = (4, 6)
ALPHA = 0.25


# --- the stand-in device ---------------------------------------------------------------------


class FakeDevice:
    """Pretend device memory: allocations by address, with their sizes."""

    id = 0

    def __init__(self) -> None:
        self.live: dict[int, int] = {}
        self.made: list[int] = []
        self._addresses = itertools.count(0x10000, 0x1000)

    def alloc(self, nbytes: int) -> int:
        address = next(self._addresses)
        self.live[address] = nbytes
        self.made.append(address)
        return address

    def free(self, address: int) -> None:
        self.live.pop(address, None)


class FakeArray:
    """Device storage standing in for a CuPy array: numpy values and a device address."""

    def __init__(self, device: FakeDevice, values: np.ndarray) -> None:
        self.values = np.ascontiguousarray(values)
        self.device = device
        self.address = device.alloc(self.values.nbytes)
        weakref.finalize(self, device.free, self.address)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.values.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.values.dtype

    @property
    def __cuda_array_interface__(self) -> dict[str, object]:
        return {
            "data": (self.address, False),
            "shape": self.shape,
            "typestr": self.values.dtype.str,
            "version": 3,
        }

    def get(self) -> np.ndarray:
        return self.values.copy()


@dataclasses.dataclass(eq=False)
class FakeFrame:
    """A Frame stand-in: FakeArray data plus the five metadata fields."""

    data: FakeArray
    channels: tuple[str, ...]
    colorspace: str
    gamma: str
    matrix: str | None

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.data.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def like(self, values: np.ndarray) -> FakeFrame:
        return FakeFrame(
            FakeArray(self.data.device, values), self.channels, self.colorspace, self.gamma, None
        )


class FakeSource:
    """A FrameSource making FakeFrames with the pixels CupyFrameSource would make."""

    def __init__(self, device: FakeDevice) -> None:
        self.device = device
        self.pixels = ev.CupyFrameSource()

    def frame(self, request: ev.FrameRequest) -> object:
        data = FakeArray(self.device, self.pixels.host_pixels(request))
        return FakeFrame(data, **request.frame_metadata())  # type: ignore[arg-type]

    def params(
        self, request: ev.FrameRequest, declared: tuple[GpuArrayParamContract, ...]
    ) -> dict[str, object]:
        host = self.pixels.host_params(request, declared)
        return {name: FakeArray(self.device, value) for name, value in host.items()}


class FakeProbe:
    """A ResourceProbe over a FakeDevice."""

    def __init__(self, device: FakeDevice) -> None:
        self.device = device
        self._start = 0

    def __enter__(self) -> FakeProbe:
        self._start = len(self.device.made)
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def snapshot(self) -> ResourceSnapshot:
        gc.collect()
        since = set(self.device.made[self._start :])
        live = tuple(sorted(address for address in self.device.live if address in since))
        return ResourceSnapshot(sum(self.device.live.values()), "bytes", live)

    def allocations(self) -> tuple[object, ...]:
        return tuple(self.device.made[self._start :])


# --- stand-in factories and instances --------------------------------------------------------


def _reject(why: str, what: str, how: str) -> ContractError:
    return ContractError(why=why, what=what, how=how)


class FakeInstance:
    """A stateless x2 upscaler (repeat) or, with ``temporal``, the filter y = a*x + (1-a)*y."""

    def __init__(self, factory: FakeFactory, contract: Any) -> None:
        self.factory = factory
        self._contract = contract
        self.backend_launches = 0
        self.closed = False
        height, width = contract.input_hw
        self.history: FakeArray | None = None
        if factory.temporal:
            self.history = FakeArray(factory.device, np.zeros((height, width, 3), np.float32))
        self.fixed: list[FakeArray] = []
        if factory.graphs:  # fixed storage a graph path keeps (workspace, not state)
            for scale in (1, contract.scale):
                self.fixed.append(
                    FakeArray(factory.device, np.zeros((height * scale, width * scale, 3)))
                )
        self._primed = False

    @property
    def contract(self) -> Any:
        return self._contract

    @property
    def scale(self) -> int:
        return int(self._contract.scale)

    def __call__(self, frame: object, /, **params: object) -> FakeFrame:
        if self.closed:
            raise _reject("the instance is closed", "call after close()", "open another")
        if self.factory.launch_before_checks:
            self.backend_launches += 1
        validate_call_params(self._contract.module_contract, set(params))
        reset = params.pop("reset", False)
        if not isinstance(frame, FakeFrame):
            raise _reject("a Frame is required", type(frame).__name__, "pass a Frame")
        metadata = {
            "channels": frame.channels,
            "colorspace": frame.colorspace,
            "gamma": frame.gamma,
            "matrix": frame.matrix,
            "dtype": str(frame.dtype),
        }
        mismatches = metadata_mismatches(metadata, RGB)
        if mismatches:
            described = ", ".join(
                f"{m.field}={m.observed} (declared {m.expected})" for m in mismatches
            )
            raise _reject("the Frame must match the contract", described, "convert it")
        height, width = self._contract.input_hw
        observed = frame.shape[:2]
        if observed != (height, width):
            raise _reject(
                "the Frame must have the opened size",
                f"observed H={observed[0]}, W={observed[1]}; accepted H in {(height, height)}, "
                f"W in {(width, width)}",
                "resize it",
            )
        if not self.factory.launch_before_checks:
            self.backend_launches += 1
        pixels = frame.data.values.astype(np.float64)
        if self.history is None:
            result = pixels.repeat(2, axis=0).repeat(2, axis=1)
        else:
            restart = (bool(reset) and not self.factory.ignore_reset) or not self._primed
            state = self.factory.shared if self.factory.shared is not None else self.history
            previous = state.values.astype(np.float64)
            result = pixels if restart else ALPHA * pixels + (1 - ALPHA) * previous
            state.values[...] = result
            self._primed = True
        output = frame.like(result.astype(np.float32))
        if self.factory.graphs and self.factory.graph_drops_metadata:
            output.colorspace = output.gamma = "sRGB"  # a graph path that forgets the metadata
        return output

    def close(self) -> None:
        self.closed = True
        self.history = None
        self.fixed = []


class FakeFactory:
    """A stand-in factory (stateless or temporal) with switches that plant one bug each."""

    def __init__(self, device: FakeDevice, *, temporal: bool = False, **bugs: bool) -> None:
        self.device = device
        self.temporal = temporal
        self.graphs = bugs.pop("graphs", False)
        self.launch_before_checks = bugs.pop("launch_before_checks", False)
        self.ignore_reset = bugs.pop("ignore_reset", False)
        self.query_allocates = bugs.pop("query_allocates", False)
        self.graph_drops_metadata = bugs.pop("graph_drops_metadata", False)
        shared = bugs.pop("shared_state", False)
        assert not bugs, bugs
        self.shared = FakeArray(device, np.zeros((*HW, 3), np.float32)) if shared else None
        self._bugs = {
            "launch_before_checks": self.launch_before_checks,
            "ignore_reset": self.ignore_reset,
            "query_allocates": self.query_allocates,
            "graph_drops_metadata": self.graph_drops_metadata,
            "shared_state": shared,
        }

    @property
    def family_contract(self) -> Any:
        if self.temporal:
            return TemporalFamilyContract(RGB, RGB, (), 0)
        return StatelessFamilyContract(RGB, RGB, ())

    def query_contract(
        self, artifact: object, /, *, precision: str, input_hw: tuple[int, int]
    ) -> Any:
        if self.query_allocates:
            FakeArray(self.device, np.zeros(16))  # a temporary, released at once
        if artifact != "fake@1":
            raise _reject("one artifact is known", f"artifact={artifact!r}", "pass 'fake@1'")
        if precision != "fp32":
            raise _reject("fp32 only", f"precision={precision!r}", "pass precision='fp32'")
        if input_hw[0] > 64 or input_hw[1] > 64:
            raise _reject("too large", f"input_hw={input_hw!r}", "at most (64, 64)")
        if self.temporal:
            footprint = StateFootprint(input_hw[0] * input_hw[1] * 3 * 4)
            return TemporalOpenContract(
                self.family_contract, artifact, precision, input_hw, 1, footprint
            )
        return StatelessOpenContract(self.family_contract, artifact, precision, input_hw, 2)

    def open(self, artifact: object, /, *, precision: str, input_hw: tuple[int, int]) -> Any:
        return FakeInstance(
            self, self.query_contract(artifact, precision=precision, input_hw=input_hw)
        )

    def graph_factory(self) -> FakeFactory:
        graphs = FakeFactory(self.device, temporal=self.temporal, graphs=True, **self._bugs)
        graphs.shared = self.shared
        return graphs


def _reference(requests: Sequence[ev.ReferenceRequest]) -> list[object]:
    outputs: list[object] = []
    history: np.ndarray | None = None
    for request in requests:
        frame = request.frame
        assert isinstance(frame, ev.HostFrame)
        x = frame.pixels.astype(np.float64)
        history = x if history is None or request.reset else ALPHA * x + (1 - ALPHA) * history
        outputs.append(frame.with_pixels(history))
    return outputs


def _upscale_reference(requests: Sequence[ev.ReferenceRequest]) -> list[object]:
    outputs: list[object] = []
    for request in requests:
        frame = request.frame
        assert isinstance(frame, ev.HostFrame)
        outputs.append(frame.with_pixels(frame.pixels.repeat(2, 0).repeat(2, 1)))
    return outputs


def _subject(*, temporal: bool = False, **bugs: bool) -> ev.EvidenceSubject:
    device = FakeDevice()
    factory = FakeFactory(device, temporal=temporal, **bugs)
    fixed_bytes = HW[0] * HW[1] * 3 * 8 * 2  # the graph path's fixed input and output
    return ev.EvidenceSubject(
        "fake/filter" if temporal else "fake/x2",
        factory,
        "fake@1",
        "fp32",
        HW,
        backend_launches=lambda instance: int(instance.backend_launches),  # type: ignore[attr-defined]
        resources=lambda: FakeProbe(device),
        frames=FakeSource(device),
        outputs_equivalent=ev.outputs_within(1e-6),
        resources_equivalent=ev.resources_within(fixed_bytes),
        reference=_reference if temporal else _upscale_reference,
        dlpack_import=lambda frame: frame.data,  # type: ignore[attr-defined]
        environment=contextlib.nullcontext,
    )


def _statuses(report: VerificationReport) -> dict[str, str]:
    return {check.name: check.status for check in report.checks}


def _without_frame_boundary(suite: Any) -> Any:
    """The suite minus frame-boundary: its judge needs real pixtreme Frames."""
    common = dataclasses.replace(suite.common, frame_boundaries=lambda: ())
    return dataclasses.replace(suite, common=common)


# --- inputs and comparators ------------------------------------------------------------------


def test_default_frame_cases_vary_every_field_of_the_contract() -> None:
    cases = {case.name: case for case in ev.default_frame_cases(RGB, HW)}
    assert cases["reference"].expected == "accept"
    assert cases["any-colorspace"].overrides == {"colorspace": "Rec.709"}
    assert cases["any-gamma"].overrides == {"gamma": "linear"}
    assert cases["other-channels"].overrides == {"channels": ("B", "G", "R")}
    assert cases["other-matrix"].overrides == {"matrix": "BT.709"}
    assert cases["other-dtype"].overrides == {"dtype": "float16"}
    assert cases["other-height"].hw == (5, 6)
    assert cases["other-width"].hw == (4, 7)
    rejected = {name for name, case in cases.items() if case.expected == "reject"}
    assert rejected == {
        "other-height",
        "other-width",
        "other-channels",
        "other-matrix",
        "other-dtype",
    }


def test_frame_source_pixels_and_params_are_seeded_and_shaped() -> None:
    source = ev.CupyFrameSource(bindings={"N": 2})
    request = ev.reference_request(RGB, (3, 5), seed=7)
    assert request.frame_metadata() == {
        "channels": ("R", "G", "B"),
        "colorspace": "sRGB",
        "gamma": "sRGB",
        "matrix": None,
    }
    pixels = source.host_pixels(request)
    assert pixels.shape == (3, 5, 3)
    assert pixels.dtype == np.float32
    np.testing.assert_array_equal(pixels, source.host_pixels(request))
    declared = (GpuArrayParamContract("mv", ("N", "H", "W"), "float32", "pixels"),)
    params = source.host_params(request, declared)
    assert params["mv"].shape == (2, 3, 5)
    with pytest.raises(ValueError, match="unbound symbols"):
        ev.CupyFrameSource().host_params(request, declared)


def test_host_frames_compare_metadata_and_pixels_within_the_tolerance() -> None:
    frame = ev.HostFrame({"colorspace": "sRGB"}, np.zeros((2, 2, 3), np.float32))
    equivalent = ev.outputs_within(1e-3)
    assert equivalent(frame, frame.with_pixels(np.full((2, 2, 3), 5e-4)))
    assert not equivalent(frame, frame.with_pixels(np.full((2, 2, 3), 2e-3)))
    assert not equivalent(frame, frame.with_pixels(np.zeros((2, 3, 3))))
    assert not equivalent(frame, frame.with_pixels(np.full((2, 2, 3), np.nan)))
    assert not equivalent(frame, ev.HostFrame({"colorspace": "Rec.709"}, frame.pixels))
    assert "sha256=" in repr(frame)
    assert len(repr(frame)) < 200  # findings carry the repr, never the pixels


def test_resource_comparator_allows_only_the_stated_slack() -> None:
    within = ev.resources_within(100)
    expected = ResourceSnapshot(1000, "bytes", ())
    assert within(ResourceSnapshot(1100, "bytes", ()), expected)
    assert not within(ResourceSnapshot(1101, "bytes", ()), expected)
    assert not within(ResourceSnapshot(999, "bytes", ()), expected)
    assert not within(ResourceSnapshot(1000, "items", ()), expected)
    assert ev.footprint_snapshot(StateFootprint(12)) == ResourceSnapshot(12, "bytes", ())


# --- harvested facts -------------------------------------------------------------------------


@pytest.mark.parametrize("temporal", [False, True], ids=["stateless", "temporal"])
def test_frame_boundary_facts_record_outputs_errors_and_backend_start(temporal: bool) -> None:
    facts = {fact.name: fact for fact in ev.frame_boundary_facts(_subject(temporal=temporal))}
    for name in ("reference", "any-colorspace", "any-gamma"):
        assert facts[name].expected == "accept"
        assert facts[name].error is None
        assert facts[name].backend_started is True
        assert isinstance(facts[name].output_frame, FakeFrame)
    for name in ("other-height", "other-width", "other-channels", "other-matrix", "other-dtype"):
        fact = facts[name]
        assert fact.expected == "reject"
        assert isinstance(fact.error, ContractError)
        assert fact.backend_started is False
        assert fact.output_frame is None
    width = facts["other-width"]
    assert width.input_profile.min_hw == width.input_profile.max_hw == HW
    assert dict(width.dimension_bindings) == {"H": 4, "W": 7}
    assert "(6, 6)" in str(width.error)  # names the accepted width bounds
    assert facts["other-dtype"].input_frame.dtype == np.float16


def test_frame_boundary_facts_show_a_backend_started_before_validation() -> None:
    facts = ev.frame_boundary_facts(_subject(launch_before_checks=True))
    assert all(fact.backend_started for fact in facts if fact.expected == "reject")


def test_dlpack_facts_pair_the_producer_and_consumer_allocations() -> None:
    facts = ev.dlpack_facts(_subject())
    assert [fact.name for fact in facts] == ["reference", "any-colorspace", "any-gamma"]
    assert all(fact.producer == fact.consumer for fact in facts)
    assert all(fact.conversion_allocations == () for fact in facts)
    copying = dataclasses.replace(
        _subject(), dlpack_import=lambda frame: FakeArray(frame.data.device, frame.data.values)
    )
    copied = ev.dlpack_facts(copying)[0]
    assert copied.producer != copied.consumer
    assert copied.conversion_allocations == (copied.consumer,)


def test_dlpack_without_an_import_function_is_unavailable() -> None:
    with pytest.raises(EvidenceUnavailable, match="dlpack_import"):
        ev.dlpack_facts(dataclasses.replace(_subject(), dlpack_import=None))


def test_query_allocation_facts_trace_temporary_allocations() -> None:
    clean = ev.query_allocation_facts(_subject())
    assert [fact.name for fact in clean] == ["family-contract", "query-contract"]
    assert all(fact.allocations_during_query == () for fact in clean)
    assert all(fact.before_query == fact.after_query for fact in clean)
    leaky = ev.query_allocation_facts(_subject(query_allocates=True))[1]
    assert len(leaky.allocations_during_query) == 1
    assert leaky.after_query.amount == leaky.before_query.amount  # released, but traced


def test_opened_and_closed_facts() -> None:
    subject = _subject(temporal=True)
    (opened,) = ev.opened_contract_facts(subject)
    assert opened.opened_contract == opened.queried_contract == subject.query()
    closed = ev.closed_inference_facts(subject)
    assert [fact.name for fact in closed] == ["call-after-close", "call-after-second-close"]
    assert all(fact.error is not None and not fact.backend_started for fact in closed)


def test_setting_rejection_facts_ask_query_and_open() -> None:
    cases = (
        ev.SettingCase("other-artifact", "fake@2", "fp32", HW, "'fake@2'", "'fake@1'"),
        ev.SettingCase("fp16", "fake@1", "fp16", HW, "fp16", "fp32"),
        ev.SettingCase("accepted-by-mistake", "fake@1", "fp32", HW, "x", "y"),
    )
    facts = {fact.name: fact for fact in ev.setting_rejection_facts(_subject(), cases)}
    assert set(facts) == {f"{case.name}/{step}" for case in cases for step in ("query", "open")}
    for name in ("other-artifact/query", "fp16/open"):
        assert facts[name].error is not None
        assert facts[name].instance_accepted is False
        assert facts[name].backend_started is False
        assert str(facts[name].observed) in str(facts[name].error)
    assert facts["accepted-by-mistake/open"].instance_accepted is True
    assert facts["accepted-by-mistake/open"].backend_started is True


def test_temporal_sequences_match_for_a_correct_module() -> None:
    subject = _subject(temporal=True)
    equivalent = subject.outputs_equivalent
    reset = ev.reset_equivalence_facts(subject)
    assert reset.reference_instance != reset.candidate_instance
    assert len(reset.reference) == 2
    assert all(map(equivalent, reset.reference, reset.candidate))
    continuation = ev.reference_facts(subject)
    assert continuation.reference_instance.startswith("reference:")
    assert len(continuation.candidate) == 4
    assert all(map(equivalent, continuation.reference, continuation.candidate))
    isolation = ev.instance_isolation_facts(subject)
    assert isolation.instance_a != isolation.instance_b
    assert all(map(equivalent, isolation.reference_a, isolation.observed_a))
    assert all(map(equivalent, isolation.reference_b, isolation.observed_b))


def test_temporal_facts_expose_an_ignored_reset_and_shared_state() -> None:
    ignored = _subject(temporal=True, ignore_reset=True)
    reset = ev.reset_equivalence_facts(ignored)
    assert not all(map(ignored.outputs_equivalent, reset.reference, reset.candidate))
    shared = _subject(temporal=True, shared_state=True)
    isolation = ev.instance_isolation_facts(shared)
    assert not all(map(shared.outputs_equivalent, isolation.reference_a, isolation.observed_a))


def test_reference_facts_need_a_reference() -> None:
    with pytest.raises(EvidenceUnavailable, match="no reference"):
        ev.reference_facts(dataclasses.replace(_subject(temporal=True), reference=None))


def test_state_lifecycle_facts_follow_the_instance_allocations() -> None:
    facts = ev.state_lifecycle_facts(_subject(temporal=True))
    history = HW[0] * HW[1] * 3 * 4
    assert facts.after_open.amount - facts.before_open.amount == history
    assert facts.after_run == facts.after_reset == facts.after_open
    assert facts.after_close.amount == facts.before_open.amount
    opened = set(facts.after_open.allocations) - set(facts.before_open.allocations)
    assert len(opened) == 1
    assert not opened & set(facts.after_close.allocations)


def test_graph_replay_facts_compare_normal_and_graph_instances() -> None:
    for temporal in (False, True):
        subject = _subject(temporal=temporal)
        (facts,) = ev.graph_replay_facts(subject)
        assert facts.reference_instance != facts.candidate_instance
        assert len(facts.reference) == (8 if temporal else 4)
        assert all(map(subject.outputs_equivalent, facts.reference, facts.candidate))
    broken = _subject(graph_drops_metadata=True)
    (facts,) = ev.graph_replay_facts(broken)
    assert not all(map(broken.outputs_equivalent, facts.reference, facts.candidate))


# --- through the published judges ------------------------------------------------------------


def test_a_correct_temporal_module_passes_every_harvested_check() -> None:
    suite = ev.module_suite(_subject(temporal=True))
    assert isinstance(suite, TemporalContractSuite)
    statuses = _statuses(verify_module_contract(_without_frame_boundary(suite)))
    assert statuses == {
        "frame-boundary": "unverified",
        "dlpack-allocation": "passed",
        "engine-round-trip": "unverified",
        "engine-incompatibility": "unverified",
        "checkpoint-selector-rejection": "unverified",
        "query-gpu-allocation": "passed",
        "opened-contract": "passed",
        "closed-inference": "passed",
        "reset-equivalence": "passed",
        "reset-continuation": "passed",
        "instance-isolation": "passed",
        "state-footprint": "passed",
    }


def test_planted_bugs_fail_their_checks() -> None:
    for bugs, check in (
        ({"query_allocates": True}, "query-gpu-allocation"),
        ({"ignore_reset": True}, "reset-equivalence"),
        ({"shared_state": True}, "instance-isolation"),
    ):
        suite = ev.module_suite(_subject(temporal=True, **bugs))
        statuses = _statuses(verify_module_contract(_without_frame_boundary(suite)))
        assert statuses[check] == "failed", (bugs, statuses)


def test_cuda_graph_suite_runs_the_module_checks_on_graph_instances() -> None:
    suite = ev.cuda_graph_suite(_subject(temporal=True))
    graph = dataclasses.replace(suite, module=_without_frame_boundary(suite.module))
    statuses = _statuses(verify_cuda_graph_contract(graph))
    assert statuses["graph-replay-equivalence"] == "passed"
    assert statuses["state-footprint"] == "passed"  # fixed storage is within the slack
    broken = ev.cuda_graph_suite(_subject(graph_drops_metadata=True))
    graph = dataclasses.replace(broken, module=_without_frame_boundary(broken.module))
    assert _statuses(verify_cuda_graph_contract(graph))["graph-replay-equivalence"] == "failed"


def test_artifact_evidence_is_passed_through() -> None:
    def round_trip() -> EngineRoundTripFacts:
        raise EvidenceUnavailable(why="no engines", what="TensorRT absent", how="install it")

    cases = (ev.SettingCase("fp16", "fake@1", "fp16", HW, "fp16", "fp32"),)
    subject = _subject()
    artifacts = ev.ArtifactEvidence(
        round_trip=round_trip,
        checkpoint_rejections=lambda: ev.setting_rejection_facts(subject, cases),
    )
    suite = _without_frame_boundary(ev.module_suite(subject, artifacts))
    report = verify_module_contract(suite)
    assert report.check("engine-round-trip").findings[0].detail.endswith("how=install it")
    assert report.check("checkpoint-selector-rejection").status == "passed"
    assert report.check("reset-equivalence").status == "not-applicable"


def test_suite_builders_check_the_family() -> None:
    with pytest.raises(ValueError, match="temporal factory"):
        ev.temporal_suite(_subject())
    with pytest.raises(ValueError, match="stateless factory"):
        ev.stateless_suite(_subject(temporal=True))


@pytest.mark.extras("cupy")
def test_the_pool_probe_hook_registers_and_reads_cupy_hook_arguments() -> None:
    # Registration is host-only (CuPy keeps hooks in a thread-local dict); the keyword names
    # are those CuPy passes to malloc_postprocess and free_postprocess.
    from cupy.cuda import memory_hook
    from pixtreme.infer.verification._evidence_probes import _pool_hook

    seen: list[int] = []
    hook = _pool_hook(seen.append, lambda pointer: seen.append(-pointer))
    with hook:
        assert hook.name in memory_hook.get_memory_hooks()
        hook.malloc_postprocess(device_id=0, size=4, mem_size=512, mem_ptr=4096, pmem_id=1)
        hook.free_postprocess(device_id=0, mem_size=512, mem_ptr=4096, pmem_id=1)
    assert hook.name not in memory_hook.get_memory_hooks()
    assert seen == [4096, -4096]
    assert _pool_hook(seen.append, seen.append).name != hook.name


def test_without_a_gpu_the_default_environment_leaves_checks_unverified(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    ev.cuda_unavailable_reason.cache_clear()
    try:
        subject = dataclasses.replace(
            _subject(temporal=True), environment=ev.cuda_stream, resources=ev.CupyPoolProbe
        )
        with pytest.raises(EvidenceUnavailable, match="CUDA_VISIBLE_DEVICES is empty"):
            ev.frame_boundary_facts(subject)
        with pytest.raises(EvidenceUnavailable), ev.CupyPoolProbe():
            pass
        report = verify_module_contract(ev.module_suite(subject))
        statuses = _statuses(report)
        assert "passed" not in statuses.values()
        assert statuses["frame-boundary"] == statuses["state-footprint"] == "unverified"
        finding = report.check("reset-equivalence").findings[0]
        assert finding.code == "evidence-unavailable"
        assert "CUDA_VISIBLE_DEVICES is empty" in finding.detail
    finally:
        ev.cuda_unavailable_reason.cache_clear()


# --- on a CUDA GPU, with real pixtreme Frames ------------------------------------------------


class _CupyUpscaler:
    """A real x2 nearest upscaler on CuPy, to run the harvesters on real Frames."""

    def __init__(self, contract: Any) -> None:
        self._contract = contract
        self.backend_launches = 0
        self._open = True

    @property
    def contract(self) -> Any:
        return self._contract

    @property
    def scale(self) -> int:
        return 2

    def __call__(self, frame: Any, /, **params: object) -> Any:
        from pixtreme.core import Frame
        from pixtreme.infer.frames import check_frame

        if not self._open:
            raise _reject("closed", "call after close()", "open another")
        validate_call_params(self._contract.module_contract, set(params))
        checked = check_frame(frame, RGB, expected_hw=self._contract.input_hw)
        self.backend_launches += 1
        data = checked.data.repeat(2, axis=0).repeat(2, axis=1)
        return Frame(
            data=data,
            channels=checked.channels,
            colorspace=checked.colorspace,
            gamma=checked.gamma,
            matrix=checked.matrix,
        )

    def close(self) -> None:
        self._open = False


class _CupyUpscalerFactory:
    family_contract = StatelessFamilyContract(RGB, RGB, ())

    def query_contract(self, artifact: object, /, *, precision: str, input_hw: Any) -> Any:
        return StatelessOpenContract(self.family_contract, artifact, precision, input_hw, 2)

    def open(self, artifact: object, /, *, precision: str, input_hw: Any) -> Any:
        return _CupyUpscaler(self.query_contract(artifact, precision=precision, input_hw=input_hw))


def _gpu_subject() -> ev.EvidenceSubject:
    import cupy

    return ev.EvidenceSubject(
        "gpu/x2",
        _CupyUpscalerFactory(),  # type: ignore[arg-type]
        "nearest@1",
        "fp32",
        (5, 7),
        backend_launches=lambda instance: int(instance.backend_launches),  # type: ignore[attr-defined]
        dlpack_import=cupy.from_dlpack,
    )


@pytest.mark.gpu
def test_harvesters_on_real_frames() -> None:
    report = verify_module_contract(ev.module_suite(_gpu_subject()))
    statuses = _statuses(report)
    for name in (
        "dlpack-allocation",
        "query-gpu-allocation",
        "opened-contract",
        "closed-inference",
    ):
        assert statuses[name] == "passed", report.check(name).findings
    # check_frame names observed and declared values; the size message does not name the
    # profile bounds, so the size cases may report diagnostic-missing, nothing else.
    boundary = report.check("frame-boundary")
    assert {finding.code for finding in boundary.findings} <= {"diagnostic-missing"}


@pytest.mark.gpu
def test_cupy_pool_probe_traces_pool_allocations() -> None:
    import cupy

    with ev.cuda_stream(), ev.CupyPoolProbe() as probe:
        before = probe.snapshot()
        kept = cupy.zeros(1024, cupy.float32)
        temporary = cupy.ones(16, cupy.float32)
        del temporary
        after = probe.snapshot()
        assert len(probe.allocations()) == 2
        assert after.amount - before.amount >= kept.nbytes
        assert after.allocations == (int(kept.data.ptr),)


@pytest.mark.gpu
def test_host_frame_and_device_pointer_of_a_real_frame() -> None:
    source = ev.CupyFrameSource()
    request = ev.reference_request(RGB, (3, 4), seed=1)
    with ev.cuda_stream():
        frame: Any = source.frame(request)
        assert ev.device_pointer(frame) == int(frame.data.data.ptr)
        captured = ev.host_frame(frame)
    np.testing.assert_array_equal(captured.pixels, source.host_pixels(request))
    assert captured.metadata["colorspace"] == "sRGB"

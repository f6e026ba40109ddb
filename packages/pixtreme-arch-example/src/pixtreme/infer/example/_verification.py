"""The verification hook: ``verification_cases()`` for ``pixtreme-infer verify example``.

The module and CUDA Graph suites are built by the core's evidence harvesters
(``pixtreme.infer.verification.evidence``) from each factory: this module supplies only what
is the example's own, namely its references, its tolerances, its memory slack, the
selectors it rejects, its engine evidence and its reports. Building the cases queries
contracts and nothing else; evidence is gathered when the checks run, on a GPU where needed,
and reported unverified with the reason where it cannot be gathered.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Final

from pixtreme.infer.recipe_identity import RecipeIdentity
from pixtreme.infer.verification import ArchitectureCases
from pixtreme.infer.verification.contracts import (
    CudaGraphContractSuite,
    StatelessContractSuite,
    TemporalContractSuite,
)
from pixtreme.infer.verification.evidence import (
    ArtifactEvidence,
    EvidenceSubject,
    HostFrame,
    ReferenceRequest,
    SettingCase,
    graph_replay_facts,
    module_suite,
    outputs_within,
    resources_within,
    setting_rejection_facts,
)

from ._engine_evidence import VERIFY_HW, engine_incompatibility, engine_round_trip
from ._factories import SHAPE_PROFILE, RecursiveFilterFactory, UpscaleX2Factory
from ._instances import backend_launches, import_frame_data
from ._recipes import RECURSIVE_FILTER_RECIPE, UPSCALE_X2_RECIPE
from ._reference import recursive_filter_reference, upscale_x2_reference
from ._reports import ARCHITECTURE, backend_report, contracts_report, onnx_report, weights_report
from ._tensorrt_backend import tensorrt_unavailable_reason

#: Largest difference accepted between two outputs (a GPU output and the float64 reference,
#: or two GPU outputs).
REFERENCE_TOLERANCE: Final = 1e-5

_POOL_ROUNDING = 512  # CuPy's memory pool hands out multiples of 512 bytes


def _pool_bytes(nbytes: int) -> int:
    return -(-nbytes // _POOL_ROUNDING) * _POOL_ROUNDING


#: Pool bytes a normal instance may hold beyond its declared history: the rounding of the
#: history allocation and the filter weights (one allocation each).
STATE_SLACK: Final = 2 * _POOL_ROUNDING
#: A graph instance also holds fixed input and output Frames (workspace, not state).
GRAPH_STATE_SLACK: Final = STATE_SLACK + 2 * _pool_bytes(VERIFY_HW[0] * VERIFY_HW[1] * 3 * 4)

Factory = UpscaleX2Factory | RecursiveFilterFactory


def _host(frame: object) -> HostFrame:
    if not isinstance(frame, HostFrame):
        raise TypeError(f"the references read captured HostFrames, not {type(frame).__name__}")
    return frame


def upscale_reference(requests: Sequence[ReferenceRequest]) -> list[object]:
    """Expected upscaler outputs: the input's metadata with the numpy reference pixels."""
    outputs: list[object] = []
    for request in requests:
        frame = _host(request.frame)
        outputs.append(frame.with_pixels(upscale_x2_reference(frame.pixels)))
    return outputs


def filter_reference(requests: Sequence[ReferenceRequest]) -> list[object]:
    """Expected filter outputs over a sequence (first request and resets restart it)."""
    frames = [_host(request.frame) for request in requests]
    expected = recursive_filter_reference(
        [frame.pixels for frame in frames], [request.reset for request in requests]
    )
    return [frame.with_pixels(pixels) for frame, pixels in zip(frames, expected, strict=True)]


def evidence_subject(factory: Factory) -> EvidenceSubject:
    """What the core's harvesters need to verify ``factory`` at VERIFY_HW, fp32."""
    temporal = isinstance(factory, RecursiveFilterFactory)
    return EvidenceSubject(
        f"{ARCHITECTURE}/{factory.network.name}",
        factory,
        factory.recipe,
        "fp32",
        VERIFY_HW,
        backend_launches=backend_launches,
        outputs_equivalent=outputs_within(REFERENCE_TOLERANCE),
        resources_equivalent=resources_within(STATE_SLACK),
        reference=filter_reference if temporal else upscale_reference,
        dlpack_import=import_frame_data,
    )


def setting_cases(factory: Factory) -> tuple[SettingCase, ...]:
    """Artifact identities and settings the factory must reject, with what the error names."""
    recipe = factory.recipe
    other = UPSCALE_X2_RECIPE if recipe == RECURSIVE_FILTER_RECIPE else RECURSIVE_FILTER_RECIPE
    version = RecipeIdentity(recipe.name, recipe.version + 1)
    hw = (8, 8)
    return (
        SettingCase("other-recipe", other, "fp32", hw, repr(other), repr(recipe)),
        SettingCase("other-version", version, "fp32", hw, repr(version), repr(recipe)),
        SettingCase("no-artifact", None, "fp32", hw, "None", repr(recipe)),
        SettingCase("precision-fp16", recipe, "fp16", hw, "fp16", "fp32"),
        SettingCase("precision-unknown", recipe, "fp64", hw, "fp64", "fp32"),
        SettingCase(
            "size-over-profile",
            recipe,
            "fp32",
            (SHAPE_PROFILE.max_hw[0] * 2, 8),
            (SHAPE_PROFILE.max_hw[0] * 2, 8),
            SHAPE_PROFILE.max_hw,
        ),
        SettingCase("size-zero", recipe, "fp32", (0, 8), (0, 8), "(height, width)"),
    )


def _factory(subject: EvidenceSubject) -> Factory:
    factory = subject.factory
    if not isinstance(factory, UpscaleX2Factory | RecursiveFilterFactory):
        raise TypeError(f"not an example factory: {type(factory).__name__}")
    return factory


def artifact_evidence(subject: EvidenceSubject) -> ArtifactEvidence:
    """The TensorRT engine evidence and the selector rejections of one subject."""
    factory = _factory(subject)
    network = factory.network.name
    return ArtifactEvidence(
        round_trip=functools.partial(engine_round_trip, network),
        incompatibilities=functools.partial(engine_incompatibility, network),
        checkpoint_rejections=functools.partial(
            setting_rejection_facts, subject, setting_cases(factory)
        ),
    )


def normal_suite(factory: Factory) -> StatelessContractSuite | TemporalContractSuite:
    """The module suite of the normal (non-graph) path."""
    subject = evidence_subject(factory)
    return module_suite(subject, artifact_evidence(subject))


def graph_suite(factory: Factory) -> CudaGraphContractSuite:
    """The CUDA Graph suite: the module suite on graph instances (with the graph path's
    memory slack), and replay equivalence against normal instances."""
    subject = evidence_subject(factory)
    graphs = dataclasses.replace(
        subject.on_graphs(), resources_equivalent=resources_within(GRAPH_STATE_SLACK)
    )
    return CudaGraphContractSuite(
        module_suite(graphs, artifact_evidence(graphs)),
        functools.partial(graph_replay_facts, subject),
    )


def verification_cases() -> ArchitectureCases:
    """The example's published cases (cheap: evidence is gathered when the checks run).

    Suites, in order: upscale-x2 and recursive-filter (module contract), then both again on
    the CUDA Graph path (cuda-graph contract). Reports: onnx, weights, contracts, backends.
    """
    upscale, temporal = UpscaleX2Factory(), RecursiveFilterFactory()
    gaps = []
    reason = tensorrt_unavailable_reason()
    if reason is not None:
        gaps.append(("tensorrt-backend", reason))
    return ArchitectureCases(
        ARCHITECTURE,
        (
            normal_suite(upscale),
            normal_suite(temporal),
            graph_suite(upscale),
            graph_suite(temporal),
        ),
        (
            onnx_report,
            weights_report,
            contracts_report,
            functools.partial(backend_report, _backend_subjects()),
        ),
        tuple(gaps),
    )


def _backend_subjects() -> dict[str, EvidenceSubject]:
    return {
        "cupy-upscale-x2-reference": evidence_subject(UpscaleX2Factory()),
        "cupy-recursive-filter-reference": evidence_subject(RecursiveFilterFactory()),
        "tensorrt-upscale-x2-reference": evidence_subject(UpscaleX2Factory(backend="tensorrt")),
        "tensorrt-recursive-filter-reference": evidence_subject(
            RecursiveFilterFactory(backend="tensorrt")
        ),
    }

"""Engine evidence only this architecture can gather: TensorRT engines through tensoracle.

The engine round trip serializes an engine in one process and loads it in another; the
incompatibility evidence damages the cached engine file in four ways. Both need a GPU and
TensorRT, and raise the core's EvidenceUnavailable (the checks report unverified) without.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification.contracts import (
    EngineBindingFacts,
    EngineRoundTripFacts,
    RejectionFacts,
)
from pixtreme.infer.verification.evidence import HostFrame, require_cuda

from ._errors import engine_error
from ._networks import CHANNELS, NETWORKS
from ._tensorrt_backend import (
    EngineDeclaration,
    TensorDeclaration,
    TensorRTEngineRunner,
    engine_declaration,
    probe_inputs,
    run_once,
    tensorrt_unavailable_reason,
)

#: The input size every GPU check opens (small, odd width to catch indexing mistakes).
VERIFY_HW: Final = (12, 21)

_PROBE = (
    "import sys; from pixtreme.infer.example._engine_evidence import engine_probe_main; "
    "engine_probe_main(sys.argv[1:])"
)
#: What every rejection of a cached engine must tell the user to do.
REBUILD_HINT: Final = "force_rebuild=True"


def require_tensorrt() -> None:
    """Raise EvidenceUnavailable unless a GPU and TensorRT (with tensoracle) are usable."""
    require_cuda()
    reason = tensorrt_unavailable_reason()
    if reason is not None:
        raise EvidenceUnavailable(
            why="this evidence builds and loads TensorRT engines through tensoracle",
            what=reason,
            how="install tensorrt-cu13 from NVIDIA's package index on a GPU machine",
        )


def engine_sha256(path: Path) -> str:
    """sha256 of a cached engine file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def expected_bindings(declaration: EngineDeclaration) -> tuple[EngineBindingFacts, ...]:
    """The bindings the declaration promises: one fixed-shape profile point per tensor."""

    def point(
        tensor: TensorDeclaration, direction: Literal["input", "output"]
    ) -> EngineBindingFacts:
        shape = tensor.shape
        return EngineBindingFacts(tensor.name, direction, tensor.dtype, shape, shape, shape)

    inputs = tuple(point(tensor, "input") for tensor in declaration.inputs)
    return inputs + tuple(point(tensor, "output") for tensor in declaration.outputs)


def _loaded_bindings(record: dict[str, Any]) -> tuple[EngineBindingFacts, ...]:
    found = []
    for item in record["bindings"]:
        low, mid, high = (tuple(shape) for shape in item["shapes"])
        found.append(
            EngineBindingFacts(item["name"], item["direction"], item["dtype"], low, mid, high)
        )
    return tuple(found)


def _output(record: dict[str, Any]) -> HostFrame:
    metadata = {
        "channels": CHANNELS,
        "colorspace": "sRGB",
        "gamma": "sRGB",
        "matrix": None,
        "dtype": "float32",
    }
    return HostFrame(metadata, np.asarray(record["output"], dtype=np.float32))


def engine_round_trip(network: str) -> EngineRoundTripFacts:
    """Serialize an engine in one process and load it in another (a fresh cache folder)."""
    require_tensorrt()
    with tempfile.TemporaryDirectory(prefix="pixtreme-example-engines-") as cache:
        built = _probe(network, rebuild=True, cache=Path(cache))
        loaded = _probe(network, rebuild=False, cache=Path(cache))
    declaration = engine_declaration(NETWORKS[network], input_hw=VERIFY_HW)
    return EngineRoundTripFacts(
        f"pid:{built['pid']}",
        f"pid:{loaded['pid']}",
        built["sha256"],
        loaded["sha256"],
        expected_bindings(declaration),
        _loaded_bindings(loaded),
        _output(built),
        _output(loaded),
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


@contextmanager
def _cache_folder() -> Iterator[None]:
    previous = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory(prefix="pixtreme-example-engines-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = previous


def engine_incompatibility(network: str) -> tuple[RejectionFacts, ...]:
    """A corrupt, truncated or foreign cached engine, and one built for other conditions
    (another input size), must be rejected naming the file and the rebuild option."""
    require_tensorrt()

    spec = NETWORKS[network]
    declaration = engine_declaration(spec, input_hw=VERIFY_HW)
    other_size = (VERIFY_HW[0], VERIFY_HW[1] + 1)
    facts = []
    with _cache_folder():
        runner = TensorRTEngineRunner(declaration)
        path = runner.engine_path
        runner.close()
        other = TensorRTEngineRunner(engine_declaration(spec, input_hw=other_size))
        other_bytes = other.engine_path.read_bytes()
        other.close()
        for label, damaged in damaged_engine_files(path.read_bytes(), other_bytes):
            path.write_bytes(damaged)
            error: BaseException | None = None
            try:
                TensorRTEngineRunner(declaration).close()
            except Exception as caught:
                error = caught
            accepted = error is None
            facts.append(
                RejectionFacts(label, error, accepted, accepted, (), str(path), REBUILD_HINT)
            )
    return tuple(facts)


def engine_probe_main(argv: list[str]) -> None:
    """Subprocess entry for the engine round trip: ``<network> rebuild|load``.

    Opens the engine (building it with ``rebuild``), runs it once on seeded inputs and prints
    one JSON line: the sha256 of the cached engine file this process wrote or loaded, the
    process id, the loaded engine's bindings and the output.
    """
    from ._networks import NETWORKS

    network, mode = argv
    declaration = engine_declaration(NETWORKS[network], input_hw=VERIFY_HW)
    runner = TensorRTEngineRunner(declaration, force_rebuild=mode == "rebuild")
    try:
        output = run_once(runner, probe_inputs(declaration))
        record = {
            "sha256": engine_sha256(runner.engine_path),
            "pid": os.getpid(),
            "bindings": runner.bindings(),
            "output": output.tolist(),
        }
        print(json.dumps(record))
    finally:
        runner.close()

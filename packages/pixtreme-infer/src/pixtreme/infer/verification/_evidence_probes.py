"""Where the harvesters run and what they measure: a CUDA stream, GPU resource probes and the
comparators of resource snapshots.

``cuda_stream`` and ``CupyPoolProbe`` raise EvidenceUnavailable (the check is unverified, not
failed) where no CUDA GPU is usable; everything else here is plain Python.
"""

from __future__ import annotations

import functools
import gc
import importlib
import itertools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, Self

from pixtreme.infer.contracts import StateFootprint
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification.contracts import (
    AllocationIdentity,
    ResourceSnapshot,
    VerificationInputError,
)

_HOOK_NAMES = itertools.count()


@functools.cache
def cuda_unavailable_reason() -> str | None:
    """Why no CUDA GPU is usable through CuPy in this process, or None when one is."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
        return "CUDA_VISIBLE_DEVICES is empty"
    try:
        cupy = importlib.import_module("cupy")
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:
        return f"CuPy reports {type(error).__name__}: {error}"
    return None if count > 0 else "the CUDA runtime reports 0 devices"


def require_cuda() -> Any:
    """Return the cupy module, or raise EvidenceUnavailable naming why no GPU is usable."""
    reason = cuda_unavailable_reason()
    if reason is not None:
        raise EvidenceUnavailable(
            why="this evidence opens instances and runs them on a CUDA GPU",
            what=f"no usable GPU: {reason}",
            how="run the verification on a machine with an NVIDIA GPU and CuPy",
        )
    return importlib.import_module("cupy")


@contextmanager
def cuda_stream() -> Iterator[object]:
    """Run the block on a fresh non-default CuPy stream and wait for it at the end.

    The default environment of EvidenceSubject; raises EvidenceUnavailable without a GPU.
    """
    cupy = require_cuda()
    with cupy.cuda.Stream(non_blocking=True) as stream:
        yield stream
        stream.synchronize()


class ResourceProbe(Protocol):
    """Observes GPU resources while entered (``with probe: ...``).

    ``snapshot`` returns the amount in use now and the identities of the allocations that
    were made since the probe was entered and are still live; ``allocations`` lists every
    allocation made since entering, in order, freed ones included.
    """

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def snapshot(self) -> ResourceSnapshot:
        """The resources in use now."""
        ...

    def allocations(self) -> tuple[AllocationIdentity, ...]:
        """Every allocation made since entering, in order."""
        ...


def _pool_hook(on_malloc: Callable[[int], None], on_free: Callable[[int], None]) -> Any:
    base = importlib.import_module("cupy.cuda.memory_hook").MemoryHook

    class _Hook(base):  # type: ignore[misc, valid-type]
        name = f"pixtreme-infer-evidence-{next(_HOOK_NAMES)}"

        def malloc_postprocess(self, **kwargs: Any) -> None:
            on_malloc(int(kwargs["mem_ptr"]))

        def free_postprocess(self, **kwargs: Any) -> None:
            on_free(int(kwargs["mem_ptr"]))

    return _Hook()


class CupyPoolProbe:
    """A ResourceProbe over CuPy's default memory pool: bytes in use, allocations by pointer.

    Enter it on the thread that allocates (CuPy memory hooks are thread-local). Memory taken
    outside the pool (TensorRT workspace, CUDA Graph memory, driver allocations) is not seen.
    Each snapshot first collects garbage and waits for the current stream.
    """

    def __init__(self) -> None:
        self._hook: Any = None
        self._cupy: Any = None
        self._live: set[int] = set()
        self._made: list[int] = []

    def __enter__(self) -> Self:
        self._cupy = require_cuda()
        self._live.clear()
        self._made.clear()
        hook = _pool_hook(self._malloc, self._live.discard)
        hook.__enter__()
        self._hook = hook
        return self

    def __exit__(self, *exc_info: object) -> None:
        hook, self._hook = self._hook, None
        if hook is not None:
            hook.__exit__(None, None, None)

    def _malloc(self, pointer: int) -> None:
        self._live.add(pointer)
        self._made.append(pointer)

    def snapshot(self) -> ResourceSnapshot:
        """Bytes the pool has handed out and the live pointers allocated since entering."""
        if self._cupy is None:
            raise VerificationInputError(
                why="a CupyPoolProbe measures only while it is entered",
                what="snapshot() was called outside its with-block",
                how="use it as `with CupyPoolProbe() as probe: probe.snapshot()`",
            )
        gc.collect()
        self._cupy.cuda.get_current_stream().synchronize()
        used = int(self._cupy.get_default_memory_pool().used_bytes())
        return ResourceSnapshot(used, "bytes", tuple(sorted(self._live)))

    def allocations(self) -> tuple[AllocationIdentity, ...]:
        """Every pool allocation (pointer) made since entering, in order."""
        return tuple(self._made)


def footprint_snapshot(footprint: object) -> ResourceSnapshot:
    """A declared StateFootprint as a ResourceSnapshot without allocations.

    The ``normalize_footprint`` of the temporal suites the harvesters build.
    """
    if not isinstance(footprint, StateFootprint):
        raise VerificationInputError(
            why="the declared state footprint of a temporal open contract is a StateFootprint",
            what=f"received {type(footprint).__name__}",
            how="declare state_footprint=StateFootprint(amount) in the open contract",
        )
    return ResourceSnapshot(footprint.amount, footprint.unit, ())


def resources_within(slack: int = 0) -> Callable[[ResourceSnapshot, ResourceSnapshot], bool]:
    """A resources_equivalent comparator: same unit, and the observed amount lies between the
    expected amount and the expected amount plus ``slack`` (allocator rounding, workspace)."""
    if isinstance(slack, bool) or not isinstance(slack, int) or slack < 0:
        raise VerificationInputError(
            why="the slack of a resource comparison is a non-negative whole amount",
            what=f"received slack={slack!r}",
            how="pass slack=0 for exact amounts, or the bytes of rounding and workspace allowed",
        )

    def equivalent(observed: ResourceSnapshot, expected: ResourceSnapshot) -> bool:
        return (
            observed.unit == expected.unit
            and expected.amount <= observed.amount <= expected.amount + slack
        )

    return equivalent

"""Buffer aliasing: working images whose uses do not overlap share one buffer.

A program records one buffer per intermediate image, so a chain of N full-size steps holds N
images for the whole submission although two or three are in use at any dispatch. For a
24 MP photo (96 MB a working image) a Gaussian blur's passes alone held 732 MiB. Once a
program's working images pass :data:`ALIAS_BYTES`, :func:`alias` hands each working image
whose first dispatch comes after another's last one that image's buffer, where both have
the same 256-byte-aligned size (so every kernel sees the binding length it was planned for).

Every working buffer holds zeros when its first dispatch runs (:meth:`Program.words`), and
some kernels rely on it (atomic sums, histogram bins). A buffer taken over is zeroed by a
``zero`` dispatch just before its new image's first dispatch, so that stays true.

Uploads are written before the dispatches, so they are never placed in another image's
buffer (a later image may take over theirs); the terminal image is copied out after them.
Smaller programs are left as they are: their buffers cost little, and a zeroing dispatch
would cost a small image's batch more than the memory it saves.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from pillow_gpu.gpu._program import BufferSpec, Dispatch, Program, aligned
from pillow_gpu.gpu.kernels import zero

__all__ = ["ALIAS_BYTES", "alias"]

#: Working-image bytes from which a program's buffers are shared (four working images of a
#: 4 MP RGB photo; a stack's lanes hold at most 4 MiB, :data:`~pillow_gpu.gpu._stack.STACK_BYTES`).
ALIAS_BYTES = 64 << 20


def alias(program: Program, terminal: int, uploads: Collection[int]) -> int:
    """Share the working buffers of ``program`` whose uses do not overlap; return the buffer
    that holds the terminal image afterwards (``terminal`` itself unless it was taken over).

    ``uploads`` are the buffers written before the dispatches. A buffer that took another's
    place becomes ``"aliased"``: nothing binds it, so no plan creates or charges it.
    """
    if program.image_bytes() < ALIAS_BYTES:
        return terminal
    buffers = program.buffers
    first: dict[int, int] = dict.fromkeys(uploads, -1)
    last: dict[int, int] = dict.fromkeys(uploads, -1)
    for step, dispatch in enumerate(program.dispatches):
        for index in dispatch.bindings:
            if buffers[index].role == "image":
                first.setdefault(index, step)
                last[index] = step
    last[terminal] = len(program.dispatches)
    # Each kept buffer: [stride, the last dispatch of its current image, its index].
    kept: list[list[int]] = []
    moved: dict[int, int] = {}
    zeroed: dict[int, list[int]] = {}
    for index in sorted(first, key=lambda index: (first[index], index)):
        stride = aligned(buffers[index].nbytes)
        start = first[index]
        free = [entry for entry in kept if entry[0] == stride and entry[1] < start]
        if start < 0 or not free:
            kept.append([stride, last[index], index])
            continue
        entry = min(free, key=lambda entry: (entry[1], entry[2]))
        entry[1] = last[index]
        moved[index] = entry[2]
        zeroed.setdefault(start, []).append(entry[2])
    if not moved:
        return terminal
    recorded = program.dispatches
    program.dispatches = []
    for step, dispatch in enumerate(recorded):
        for index in zeroed.get(step, ()):
            zero.zero(program, index)
        program.dispatches.append(_rebound(dispatch, moved))
    for index in moved:
        buffers[index] = BufferSpec(index=index, nbytes=buffers[index].nbytes, role="aliased")
    program.changed()
    return moved.get(terminal, terminal)


def _rebound(dispatch: Dispatch, moved: dict[int, int]) -> Dispatch:
    bindings = tuple(moved.get(index, index) for index in dispatch.bindings)
    return dispatch if bindings == dispatch.bindings else replace(dispatch, bindings=bindings)

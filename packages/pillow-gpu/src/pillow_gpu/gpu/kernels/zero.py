"""Zeroing kernel: a working buffer taken over by a later image starts from zeros again."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program, aligned

__all__ = ["zero"]

#: Words one invocation clears (four vectors; a lane is a whole number of 64-word granules).
_WORDS = 16


def zero(program: Program, buffer: int) -> None:
    """Record the zeroing of every word of ``buffer`` (its whole 256-byte-aligned lane)."""
    count = aligned(program.buffers[buffer].nbytes) // (4 * _WORDS)
    program.dispatch(
        "zero", words=(count,), bindings=(buffer,), grid=(count, 1), invocation_work=4, linear=True
    )

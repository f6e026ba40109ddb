"""Whether ``--cpu-fallback``'s live Pillow can hold a file's images in this machine's memory.

Pillow makes an operation's result image before it reads the source's pixels (``rotate``
with ``expand`` creates its output first), and it asks for that memory block by block. A
result larger than the machine (a 3,158,064 x 48 strip turned by 30 degrees is over four
million megapixels) then fills the memory until the system kills the process, and the whole
run with it. The GPU refuses such a file at admission (its pixel bound), so it reaches the
fallback; there the sizes are known before anything runs: the chain recorded on the lazy
image of the file's header gives every step's mode and size.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from pillow_gpu import Image
from pillow_gpu._graph import walk
from pillow_gpu.cli._chain import Chain
from pillow_gpu.cli._report import Failure
from pillow_gpu.gpu._layout import upload_nbytes

__all__ = ["fallback_bytes", "memory_refusal", "physical_memory"]


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return None


def fallback_bytes(opened: Image.Image, chain: Chain, frames: int = 1) -> tuple[int, str]:
    """About the most memory Pillow holds at once running ``chain`` on the lazy ``opened``:
    its two largest images (a step's source and result), and with ``frames`` the results of
    the other frames of an animation, kept to be saved together; with the largest image as
    ``"W x H (mode MODE)"``."""
    root = chain.apply(opened)._node
    nodes = sorted(walk(root), key=lambda node: upload_nbytes(node.mode, node.size))
    working = sum(upload_nbytes(node.mode, node.size) for node in nodes[-2:])
    kept = (frames - 1) * upload_nbytes(root.mode, root.size)
    largest = nodes[-1]
    return working + kept, f"{largest.size[0]} x {largest.size[1]} (mode {largest.mode})"


def memory_refusal(path: Path, chain: Chain, *, animation: bool) -> Failure | None:
    """The failure of a file whose fallback would need more than this machine's memory, or
    None (where the chain cannot be recorded, Pillow meets the problem and reports it)."""
    memory = physical_memory()
    if memory is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the header's warnings are Pillow's to give
            opened = Image.open(path)
            frames = opened.n_frames if animation else 1
            need, largest = fallback_bytes(opened, chain, frames)
    except Exception:
        return None
    if need <= memory:
        return None
    return Failure(
        path=str(path),
        kind="Limit",
        stage="fallback",
        message=f"why: live Pillow would need about {_gib(need)} for this file's images, more "
        f"than this machine's {_gib(memory)} of memory, and would be stopped by the system "
        f"with the whole run; observed: a {largest} image in the chain {chain}; fix: shrink "
        "the file first (a thumbnail or reduce step before the one that grows it), or leave "
        "it out",
    )


def _gib(nbytes: int) -> str:
    return f"{nbytes / (1 << 30):,.1f} GiB"

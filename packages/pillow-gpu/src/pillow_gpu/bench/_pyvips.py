"""The optional pyvips lane: libvips on the CPU, its own kernels, so no Pillow parity.

Runs only when ``pyvips`` imports (``pip install pyvips pyvips-binary``); otherwise the lane
reports ``not installed``. Its parity column always reads ``no parity (libvips kernels)``: the
lane shows what a CPU user would pick instead, not an exact result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image as PILImage

from pillow_gpu.bench._workloads import Workload, job_sources

__all__ = ["NO_PARITY", "PyvipsUnavailable", "pyvips_window"]

#: The parity status of every timed pyvips case.
NO_PARITY = "no parity (libvips kernels)"


class PyvipsUnavailable(Exception):
    """pyvips is not installed, or has no equivalent of the workload."""


def _chain(vips: Any, name: str, mode: str) -> Callable[[list[Any]], Any]:
    def invert(image: Any) -> Any:
        return image.invert()

    chains: dict[str, Callable[[list[Any]], Any]] = {
        "invert_median3": lambda im: invert(im[0]).median(3),
        "gaussian_blur2": lambda im: im[0].gaussblur(2),
        "chops_invert": lambda im: invert(im[0]),
        "multiply": lambda im: (im[0] * im[1] / 255).cast("uchar"),
        "grayscale_invert": lambda im: invert(im[0].colourspace("b-w")[0]),
        "thumbnail_bicubic": lambda im: im[0].resize(0.25, kernel="cubic"),
    }
    if name not in chains:
        raise PyvipsUnavailable(f"no pyvips chain for {name}")
    return chains[name]


def pyvips_window(
    workload: Workload, mode: str, sources: Sequence[PILImage.Image], batch: int
) -> Callable[[], int]:
    """A window that runs ``batch`` jobs with pyvips from memory and takes each output's bytes."""
    try:
        import pyvips  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except (ImportError, OSError) as error:
        raise PyvipsUnavailable("not installed") from error
    chain = _chain(pyvips, workload.name, mode)
    bands = len(mode)
    width, height = sources[0].size
    memory = {id(image): image.tobytes() for image in sources}

    def window() -> int:
        for index in range(batch):
            images = [
                pyvips.Image.new_from_memory(memory[id(image)], width, height, bands, "uchar")
                for image in job_sources(workload, sources, index)
            ]
            chain(images).write_to_memory()
        return batch

    return window

"""Pillow-compatible lazy image graphs executed byte-exactly on the GPU through wgpu.

``from pillow_gpu import Image, ImageOps, ImageFilter, ImageChops, ImageEnhance, ImageDraw``
mirrors Pillow's modules; ``pillow_gpu.gpu.evaluate(image)`` runs a graph on the GPU;
``GpuBatchExecutor`` streams many graphs through bounded GPU submissions.
"""

from importlib.metadata import PackageNotFoundError, version

from pillow_gpu import (
    Image,
    ImageChops,
    ImageDraw,
    ImageEnhance,
    ImageFilter,
    ImageOps,
    ImageSequence,
    errors,
)
from pillow_gpu.executor import (
    BatchError,
    BatchFailure,
    BatchResult,
    GpuBatchExecutor,
    GpuImage,
    QueueFull,
    ResultBackpressure,
    Results,
)

try:
    __version__ = version("pillow-gpu")
except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0.0.0"

__all__ = [
    "BatchError",
    "BatchFailure",
    "BatchResult",
    "GpuBatchExecutor",
    "GpuImage",
    "Image",
    "ImageChops",
    "ImageDraw",
    "ImageEnhance",
    "ImageFilter",
    "ImageOps",
    "ImageSequence",
    "QueueFull",
    "ResultBackpressure",
    "Results",
    "__version__",
    "errors",
]

"""Pillow-compatible lazy image graphs executed byte-exactly on the GPU through wgpu.

``from pillow_gpu import Image, ImageOps, ImageFilter, ImageChops, ImageEnhance`` mirrors
Pillow's modules; ``pillow_gpu.gpu.evaluate(image)`` runs a graph on the GPU.
"""

from importlib.metadata import PackageNotFoundError, version

from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps, errors

try:
    __version__ = version("pillow-gpu")
except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0.0.0"

__all__ = [
    "Image",
    "ImageChops",
    "ImageEnhance",
    "ImageFilter",
    "ImageOps",
    "__version__",
    "errors",
]

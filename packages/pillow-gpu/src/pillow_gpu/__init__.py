"""Pillow-compatible lazy image graphs executed byte-exactly on the GPU through wgpu."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pillow-gpu")
except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0.0.0"

__all__ = ["__version__"]

"""Lazy counterpart of ``PIL.ImageDraw``: Pillow draws on the CPU into a lazy image's pixels.

``ImageDraw.Draw(image)`` (this module's or Pillow's: Pillow asks the image for its drawing
interface) returns an object with Pillow's drawing methods (``rectangle``, ``text``, ``line``,
``polygon``, ...) and attributes (``font``, ``fontmode``, ``ink``, ``fill``). Drawing is
Pillow's own rasterizer on the CPU, so the pixels are Pillow's exactly: the first call completes
the graph so far with Pillow (``to_pil``) and later calls draw into the same pixels; when the
image is next used, the drawn pixels become a leaf of its graph (one copy), and operations
after that run on the GPU again. ``floodfill`` fills a lazy image's pixels the same way.
"""

from __future__ import annotations

from PIL.ImageDraw import Draw, Outline

from pillow_gpu._drawing import ImageDraw, floodfill

__all__ = ["Draw", "ImageDraw", "Outline", "floodfill"]

"""Pillow's ``PIL.ImagePalette`` itself: the palettes ``putpalette`` takes.

``pillow_gpu.ImagePalette`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImagePalette as _pillow
from PIL.ImagePalette import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

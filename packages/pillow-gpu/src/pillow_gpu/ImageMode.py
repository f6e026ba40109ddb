"""Pillow's ``PIL.ImageMode`` itself (the modes' descriptions; it takes no image).

``pillow_gpu.ImageMode`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImageMode as _pillow
from PIL.ImageMode import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

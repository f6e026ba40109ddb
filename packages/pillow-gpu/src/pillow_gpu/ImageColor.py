"""Pillow's ``PIL.ImageColor`` itself (colour names and strings; it takes no image).

``pillow_gpu.ImageColor`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImageColor as _pillow
from PIL.ImageColor import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

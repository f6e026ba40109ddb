"""Pillow's ``PIL.ImageText`` itself: the text layouts ``pillow_gpu.ImageDraw`` draws.

``pillow_gpu.ImageText`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImageText as _pillow
from PIL.ImageText import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

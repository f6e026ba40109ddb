"""Pillow's ``PIL.ImageFont`` itself: the fonts ``pillow_gpu.ImageDraw`` draws with.

``pillow_gpu.ImageFont`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImageFont as _pillow
from PIL.ImageFont import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

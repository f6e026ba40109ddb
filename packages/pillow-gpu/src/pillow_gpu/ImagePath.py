"""Pillow's ``PIL.ImagePath`` itself: the paths ``pillow_gpu.ImageDraw`` takes.

``pillow_gpu.ImagePath`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImagePath as _pillow
from PIL.ImagePath import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

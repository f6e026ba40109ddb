"""Pillow's ``PIL.ImageTransform`` itself: the transforms ``Image.transform`` takes.

``pillow_gpu.ImageTransform`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImageTransform as _pillow
from PIL.ImageTransform import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

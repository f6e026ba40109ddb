"""Pillow's ``PIL.TiffTags`` itself (the TIFF tag names and types; it takes no image).

``pillow_gpu.TiffTags`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import TiffTags as _pillow
from PIL.TiffTags import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

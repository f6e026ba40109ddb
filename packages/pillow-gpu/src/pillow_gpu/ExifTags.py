"""Pillow's ``PIL.ExifTags`` itself (the EXIF tag and GPS names; it takes no image).

``pillow_gpu.ExifTags`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ExifTags as _pillow
from PIL.ExifTags import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

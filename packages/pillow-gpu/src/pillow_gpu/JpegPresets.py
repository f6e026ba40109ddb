"""Pillow's ``PIL.JpegPresets`` itself (the JPEG writer's ``quality`` presets).

``pillow_gpu.JpegPresets`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import JpegPresets as _pillow
from PIL.JpegPresets import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

"""Pillow's ``PIL.ImageFile`` itself, so a setting such as
``ImageFile.LOAD_TRUNCATED_IMAGES = True`` is the one Pillow's decoders read: they decode
every file opened here.

``pillow_gpu.ImageFile`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import ImageFile as _pillow
from PIL.ImageFile import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

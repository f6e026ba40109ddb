"""Pillow's ``PIL.features`` itself: the codecs and features of the Pillow build that
reads and writes every file here.

``pillow_gpu.features`` is that module object, not a copy: a setting made through
either name is the one Pillow reads.
"""

import sys

from PIL import features as _pillow
from PIL.features import *  # noqa: F403 - the names type checkers see here

sys.modules[__name__] = _pillow

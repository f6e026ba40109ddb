"""``PIL.ImageStat`` for lazy images: the statistics of an image's histogram."""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage
from PIL import ImageStat as _PILImageStat

from pillow_gpu._image import Image

__all__ = ["Global", "Stat"]


class Stat(_PILImageStat.Stat):
    """``PIL.ImageStat.Stat`` of a lazy image (completed for its histogram), a PIL image or a
    histogram; ``mask`` may be lazy too. Each statistic is Pillow's own, from that histogram."""

    def __init__(self, image_or_list: Image | PILImage.Image | list[int], mask: Any = None) -> None:
        if isinstance(image_or_list, Image):
            image_or_list = image_or_list.histogram(mask)
        elif isinstance(mask, Image):
            mask = mask.to_pil()
        super().__init__(image_or_list, mask)


Global = Stat

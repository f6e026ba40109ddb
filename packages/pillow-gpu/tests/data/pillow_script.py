"""A small script written for Pillow: a framed, translucent, softened thumbnail of a photo.

``python pillow_script.py SOURCE TARGET`` reads SOURCE and writes a PNG to TARGET. It uses
Pillow's in-place ``thumbnail``, ``paste`` and ``putalpha`` as Pillow code does; the tests run
it as written and again with its import line rewritten to ``pillow_gpu``.
"""

import sys

from PIL import Image, ImageFilter, ImageOps

CANVAS = (64, 64)


def build(source):
    """The framed thumbnail of the image file ``source``."""
    image = Image.open(source)
    image = ImageOps.exif_transpose(image)
    image = image.convert("RGB")
    image.thumbnail((48, 48))
    canvas = Image.new("RGB", CANVAS, "navy")
    canvas.paste((255, 255, 255), (0, 0, CANVAS[0], 4))
    left = (CANVAS[0] - image.width) // 2
    top = (CANVAS[1] - image.height) // 2
    canvas.paste(image, (left, top))
    canvas.putalpha(200)
    return canvas.filter(ImageFilter.GaussianBlur(1.5))


def main(source, target):
    """Write the framed thumbnail of ``source`` to ``target`` as a PNG."""
    build(source).save(target, "PNG")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""A lazy image as a Python object, against Pillow's image: attributes code keeps on it, weak
references to it, and ``format`` and ``filename`` assigned (plain data on Pillow's image).

Each case makes the same image on both sides (an opened file by path or file object, a new
image, an operation's result, a ``from_pil`` image), does the same to it, and compares what
code reads back; the pickled form of an assigned ``format`` or ``filename`` too (Pillow pickles
an opened file's ``filename``, and its unpickled image answers its plugin's ``format``).
"""

from __future__ import annotations

import gc
import io
import pickle
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import make_image

SIZE = (23, 17)


def _opened_path(module: Any, folder: Path) -> Any:
    path = folder / "photo.jpg"
    if not path.exists():
        make_image("RGB", SIZE).save(path, "JPEG")
    image = module.open(path)
    image.load()  # Pillow's image then holds no open file (its weak reference test drops it)
    return image


def _opened_file_object(module: Any, folder: Path) -> Any:
    data = io.BytesIO()
    make_image("RGBA", SIZE).save(data, "PNG")
    return module.open(io.BytesIO(data.getvalue()))


#: name -> make(module, folder): the same image from Pillow or pillow_gpu.
IMAGES: dict[str, Callable[[Any, Path], Any]] = {
    "opened-path": _opened_path,
    "opened-file-object": _opened_file_object,
    "new": lambda module, folder: module.new("L", SIZE, 7),
    "result": lambda module, folder: _opened_path(module, folder).resize((11, 9)),
    "from-pil": lambda module, folder: (
        make_image("LA", SIZE) if module is PILImage else Image.from_pil(make_image("LA", SIZE))
    ),
}


def _answer(read: Callable[[], Any]) -> Any:
    try:
        return ("answer", read())
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


def _kept_attributes(image: Any) -> list[Any]:
    image.label = 3
    image.tags = ["a"]
    answers = [_answer(lambda: (image.label, image.tags))]
    image.thumbnail((12, 12))  # in place: the same object, its attributes with it
    answers.append(_answer(lambda: (image.label, image.size)))
    del image.label
    answers.append(_answer(lambda: image.label))
    answers.append(_answer(lambda: image.copy().tags))  # a copy is a new image: none kept
    return answers


def _weak_references(image: Any) -> list[Any]:
    found = weakref.WeakValueDictionary({"image": image})
    finalized: list[bool] = []
    weakref.finalize(image, finalized.append, True)
    reference = weakref.ref(image)
    answers = [reference() is image, found.get("image") is image]
    del image
    gc.collect()
    return [*answers, reference() is None, "image" not in found, finalized == [True]]


def _assigned_format(image: Any) -> list[Any]:
    before = image.format
    image.format = "PNG"
    unpickled = pickle.loads(pickle.dumps(image))
    return [before, image.format, _answer(lambda: unpickled.format)]


def _assigned_filename(image: Any) -> list[Any]:
    image.filename = "named.png"
    unpickled = pickle.loads(pickle.dumps(image))
    return [image.filename, _answer(lambda: unpickled.filename)]


#: name -> action(image): what is done, and the answers read back.
ACTIONS: dict[str, Callable[[Any], list[Any]]] = {
    "kept-attributes": _kept_attributes,
    "weak-references": _weak_references,
    "assigned-format": _assigned_format,
    "assigned-filename": _assigned_filename,
}


@pytest.mark.parametrize("action", ACTIONS.values(), ids=ACTIONS.keys())
@pytest.mark.parametrize("make", IMAGES.values(), ids=IMAGES.keys())
def test_a_lazy_image_is_a_plain_object_as_pillows(
    make: Callable[[Any, Path], Any], action: Callable[[Any], list[Any]], tmp_path: Path
) -> None:
    expected = action(make(PILImage, tmp_path))
    actual = action(make(Image, tmp_path))  # no reference kept (an assert's would keep one)
    assert actual == expected


@pytest.mark.parametrize("name", ["im", "readonly"])
def test_pillows_c_image_names_cannot_be_assigned(name: str) -> None:
    """Pillow's image takes them (its C image, its read-only flag); a lazy image has neither,
    and a value kept in its ``__dict__`` would change none of its pixels: it says why."""
    image = Image.new("RGB", SIZE)
    with pytest.raises(AttributeError, match=rf"why: .*Pillow's {name} .*fix: "):
        setattr(image, name, None)
    with pytest.raises(AttributeError, match=rf"why: .*Pillow's {name} "):
        getattr(image, name)
    assert not hasattr(image, name)

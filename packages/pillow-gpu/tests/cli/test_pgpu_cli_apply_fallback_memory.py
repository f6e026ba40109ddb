"""``--cpu-fallback`` never runs live Pillow on a file whose images outgrow the machine.

Pillow makes a step's result before it reads the source (``rotate`` with ``expand`` creates
its output first) and takes memory block by block, so a result larger than the machine fills
the memory until the system kills the whole run. Pillow's own test image ``l2rgb_read.bmp``
(a 57-byte header of a 3,158,064 x 48 image) turned by 30 degrees does that: the apply
lane of the corpus sweep grew to 23 GiB and was killed. The fallback now sizes the chain from
the file's header first and fails such a file with ``Limit at fallback``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import make_image
from pillow_gpu.cli import _fallback, main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.gpu._device import SharedDevice

#: A chain the GPU refuses for an RGBA file (Pillow quantizes it), so the fallback runs.
REFUSED = "convert:P"


def test_the_strip_turned_by_30_degrees_needs_terabytes() -> None:
    strip = Image.new("1", (3_158_064, 48))  # lazy: nothing is allocated
    need, largest = _fallback.fallback_bytes(strip, parse_chain("rotate:30:bicubic"))
    assert need > 4 * 10**12  # about 4.3 TB: over four million megapixels, one byte each
    assert largest == "2734988 x 1579074 (mode 1)"


@pytest.mark.parametrize("frames", [1, 3])
def test_an_animation_s_results_are_counted_for_every_frame(frames: int) -> None:
    image = Image.new("RGB", (100, 50))
    need, _ = _fallback.fallback_bytes(image, parse_chain("resize:20x10"), frames)
    assert need == 100 * 50 * 4 + 20 * 10 * 4 + (frames - 1) * 20 * 10 * 4


@pytest.fixture
def rgba(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "logo.png"
    path.parent.mkdir()
    make_image("RGBA", (256, 128), 3).save(path)
    return path


def test_a_file_the_machine_cannot_hold_fails_before_pillow_runs(
    rgba: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_fallback, "physical_memory", lambda: 64 << 10)  # a 64 KiB machine
    out = tmp_path / "out"
    argv = ["apply", REFUSED, str(rgba), "-o", str(out), "--cpu-fallback", "--no-progress"]
    assert main(argv) == 1
    failed = capsys.readouterr().err
    assert f"{rgba}: Limit at fallback: why: live Pillow would need about 0.0 GiB for this " in (
        failed
    )
    assert "observed: a 256 x 128 (mode RGBA) image in the chain convert:P; fix: shrink" in failed
    assert not out.exists() or not list(out.iterdir())


def test_a_file_the_machine_holds_runs_on_the_fallback_as_before(
    rgba: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["apply", REFUSED, str(rgba), "-o", str(out), "--cpu-fallback", "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    with PILImage.open(out / "logo.png") as written, PILImage.open(rgba) as opened:
        assert written.tobytes() == opened.convert("P").tobytes()


def test_the_machine_s_memory_is_known_here() -> None:
    memory = _fallback.physical_memory()
    assert memory is not None  # Linux and macOS say
    assert memory > 1 << 28  # CI machines have gigabytes

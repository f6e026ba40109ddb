"""A closed output pipe (`pillow-gpu ... | head -1`) ends the command quietly.

Before, the summary's ``print`` raised ``BrokenPipeError`` out of ``main`` (a traceback and
exit status 1) whenever the reader had gone, as ``head -1`` often has by the summary's second
line. Now the command stops without a traceback, and no output is left half written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu.cli._outputs import TEMP_SUFFIX

pytestmark = pytest.mark.usefixtures("device")


def _folder(tmp_path: Path, *, broken: int) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for index in range(6):
        PILImage.new("L", (24, 16), index * 40).save(folder / f"{index}.png")
    for index in range(broken):
        (folder / f"broken{index}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    return folder


def _apply_into_closed_pipe(folder: Path, out: Path, stream: str) -> tuple[int, str]:
    """Run ``apply`` with ``stream`` (stdout or stderr) a pipe whose reader closed at once."""
    command = [sys.executable, "-m", "pillow_gpu", "apply", "invert", str(folder), "-o", str(out)]
    closed = {stream: subprocess.PIPE}
    other = "stderr" if stream == "stdout" else "stdout"
    with subprocess.Popen(
        [*command, "--no-progress"], **closed, **{other: subprocess.PIPE}, text=True
    ) as process:
        pipe = getattr(process, stream)
        pipe.close()  # the reader went away before the first line
        rest = getattr(process, other).read()
        process.wait(timeout=300)
    return process.returncode, rest


def test_a_closed_stdout_ends_quietly_after_the_outputs(tmp_path: Path) -> None:
    folder = _folder(tmp_path, broken=0)
    out = tmp_path / "out"
    code, stderr = _apply_into_closed_pipe(folder, out, "stdout")
    assert code == 1
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr
    assert sorted(path.name for path in out.iterdir()) == sorted(
        path.name for path in folder.iterdir()
    )  # the summary is printed last: every output was written before it
    for path in out.iterdir():
        with PILImage.open(folder / path.name) as source, PILImage.open(path) as written:
            assert written.tobytes() == PILImageOps.invert(source).tobytes()


def test_a_closed_stderr_stops_without_partial_outputs(tmp_path: Path) -> None:
    folder = _folder(tmp_path, broken=3)
    out = tmp_path / "out"
    code, stdout = _apply_into_closed_pipe(folder, out, "stderr")
    assert code == 1  # the first failure line met the closed pipe
    assert "Traceback" not in stdout
    written = list(out.iterdir()) if out.exists() else []
    assert not [path for path in written if path.name.endswith(TEMP_SUFFIX)]
    for path in written:
        with PILImage.open(folder / path.name) as source, PILImage.open(path) as output:
            assert output.tobytes() == PILImageOps.invert(source).tobytes()

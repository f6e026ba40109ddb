"""docs/from-pillow-rs.md: its example runs as written here, and with pillow-rs's import line
in pillow-rs's venv it prints the same bytes' hashes (the page's claim)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu.bench._pillow_rs import venv_python

DOC = Path(__file__).resolve().parents[1] / "docs" / "from-pillow-rs.md"
(EXAMPLE,) = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), flags=re.DOTALL)
OURS = "from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps"
THEIRS = "from PIL import GpuBatchExecutor, Image, ImageFilter, ImageOps"

_BOOTSTRAPPED = Path(__file__).resolve().parents[3] / ".venv-pillow-rs"
_VENV = os.environ.get("PILLOW_GPU_BENCH_PILLOW_RS_VENV") or str(_BOOTSTRAPPED)


def _expected() -> list[str]:
    """The lines the example prints, from live Pillow."""
    lines = []
    for index in range(3):
        data = bytes((x * 31 + index * 7) % 256 for x in range(64 * 48 * 3))
        source = PILImage.frombytes("RGB", (64, 48), data)
        image = PILImageOps.invert(source).filter(PILImageFilter.MedianFilter(3))
        digest = hashlib.sha256(image.tobytes()).hexdigest()
        lines.append(f"img{index} RGB (64, 48) {digest}")
    return lines


@pytest.mark.usefixtures("device")
def test_example_prints_pillows_hashes(capsys: pytest.CaptureFixture[str]) -> None:
    assert OURS in EXAMPLE
    exec(compile(EXAMPLE, f"{DOC.name}[0]", "exec"), {"__name__": "__doc_example__"})
    assert sorted(capsys.readouterr().out.splitlines()) == _expected()


@pytest.mark.skipif(
    not venv_python(Path(_VENV)).exists(),
    reason="no venv with pillow-rs: run tools/bootstrap.sh (it makes .venv-pillow-rs) or set "
    "PILLOW_GPU_BENCH_PILLOW_RS_VENV",
)
def test_example_with_pillow_rs_prints_the_same(tmp_path: Path) -> None:
    script = tmp_path / "example_pillow_rs.py"
    script.write_text(EXAMPLE.replace(OURS, THEIRS), "utf-8")
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", str(tmp_path))}
    done = subprocess.run(
        [str(venv_python(Path(_VENV))), str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(done.stdout.splitlines()) == _expected()

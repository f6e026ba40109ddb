"""docs/executor.md: every Python example runs as written (and its files appear)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps

DOC = Path(__file__).resolve().parents[2] / "docs" / "executor.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), flags=re.DOTALL)


def test_doc_has_the_spec_examples() -> None:
    assert len(BLOCKS) == 7
    assert all("from pillow_gpu import" in block for block in BLOCKS)


def _run_as_script(block: str, tmp_path: Path) -> None:
    """A block with a ``__main__`` guard (worker processes import its functions) runs as a
    script; what it prints must be what its ``print(...)  # ...`` comment says."""
    script = tmp_path / "example.py"
    script.write_text(block, "utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    expected = re.findall(r"print\(.*\)  # (.+)", block)
    assert expected
    assert done.stdout.strip().splitlines()[-len(expected) :] == expected


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[f"example-{i}" for i in range(7)])
def test_doc_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if 'if __name__ == "__main__":' in BLOCKS[index]:
        _run_as_script(BLOCKS[index], tmp_path)
        return
    monkeypatch.chdir(tmp_path)
    sources = {name: PILImage.new("L", (20, 10), v) for name, v in (("a", 30), ("b", 60))}
    for name, image in sources.items():
        image.save(f"{name}-gray.png")
    exec(compile(BLOCKS[index], f"{DOC.name}[{index}]", "exec"), {"__name__": "__doc_example__"})
    if index == 0:
        with PILImage.open("inverted.png") as saved:
            assert (
                saved.tobytes() == PILImageOps.invert(PILImage.new("L", (256, 256), 42)).tobytes()
            )
    if index == 1:
        for name, image in sources.items():
            with PILImage.open(f"{name}-gray.png.inverted.png") as saved:
                assert saved.tobytes() == PILImageOps.invert(image).tobytes()
    if '".palette.png"' in BLOCKS[index]:  # errors="deliver": the gray files were written
        for name, image in sources.items():
            with PILImage.open(f"{name}-gray.png.palette.png") as saved:
                assert saved.mode == "P"
                assert saved.tobytes() == image.convert("P").tobytes()
    if "result-{result.input_key}.png" in BLOCKS[index]:
        assert len(list(tmp_path.glob("result-*.png"))) == 100
        with PILImage.open("result-7.png") as saved:
            assert saved.getpixel((0, 0)) == 255 - 7

"""The files benchmark: every lane's bytes equal Pillow's, its table and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pillow_gpu.bench._files import FILES_LANES, FilesBenchConfig, run_files_benchmark
from pillow_gpu.bench.files import main

pytestmark = pytest.mark.usefixtures("device")


def test_every_lane_is_exact_and_timed() -> None:
    config = FilesBenchConfig(files=4, size=(96, 64), repeats=1, chain="exif_transpose,rotate:90")
    result = run_files_benchmark(config)
    assert result["inputs"]["files"] == 4
    assert result["inputs"]["bytes"] > 0
    assert [lane["lane"] for lane in result["lanes"]] == list(FILES_LANES)
    for lane in result["lanes"]:
        assert lane["parity"] == "exact", lane
        assert lane["files_per_s"] > 0
        assert len(lane["windows_s"]) == 1
    serial = result["lanes"][FILES_LANES.index("ours_serial")]
    assert serial["vs_ours_serial"] == pytest.approx(1.0)


def test_the_command_writes_its_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = tmp_path / "files"
    arguments = ["--files", "3", "--size", "80x60", "--repeats", "1", "--output", str(prefix)]
    assert main(arguments) == 0
    table = capsys.readouterr().out
    assert "| ours_serial |" in table
    assert "| pillow_all_cores |" in table
    assert "| ours_cpu |" in table
    document = json.loads(prefix.with_suffix(".json").read_text())
    assert document["benchmark"] == "files"
    assert "| ours |" in prefix.with_suffix(".md").read_text()


@pytest.mark.parametrize(
    "arguments",
    [["--files", "0"], ["--size", "wide"], ["--chain", "no_such_step"]],
    ids=["no-files", "bad-size", "bad-chain"],
)
def test_bad_arguments_exit_with_usage(arguments: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(arguments)
    assert caught.value.code == 2

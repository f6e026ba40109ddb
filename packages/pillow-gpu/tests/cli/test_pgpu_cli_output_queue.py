"""``cli._output_queue.OutputQueue``: outputs written by worker threads, settled in order.

Writes that finish out of order are settled in the order they were queued; at most twice
``threads`` writes (and ``max_bytes`` of results, one at least) are queued at a time; a
cancelled write that has not started is settled as cancelled and never runs; a failed write's
exception reaches its settle; ``threads=0`` writes in the caller. Then ``pillow-gpu apply``
with write threads writes the same files and reports the same lines as without.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from pillow_gpu._testing import make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._output_queue import OutputQueue, write_threads
from pillow_gpu.gpu._device import SharedDevice


def _recorder() -> tuple[list[tuple[str, Any]], Any]:
    settled: list[tuple[str, Any]] = []

    def settle_as(name: str) -> Any:
        def settle(outcome: Future[Any]) -> None:
            if outcome.cancelled():
                settled.append((name, "cancelled"))
            elif outcome.exception() is not None:
                settled.append((name, repr(outcome.exception())))
            else:
                settled.append((name, outcome.result()))

        return settle

    return settled, settle_as


@pytest.mark.parametrize("threads", [0, 1, 3])
def test_writes_are_settled_in_the_order_they_were_queued(threads: int) -> None:
    settled, settle_as = _recorder()
    queue = OutputQueue(threads, 1 << 20)
    delays = [0.05, 0.0, 0.02, 0.0, 0.01]  # later writes finish first
    ran_in: list[str] = []

    def write(number: int) -> Any:
        def run() -> int:
            time.sleep(delays[number])
            ran_in.append(threading.current_thread().name)
            return number * 10

        return run

    for number in range(len(delays)):
        queue.put(write(number), 100, settle_as(f"w{number}"))
        assert len(queue._queued) <= max(2 * threads, 1)  # a waiting write per worker
    queue.finish()
    queue.close()
    assert settled == [(f"w{number}", number * 10) for number in range(len(delays))]
    in_caller = all(name == threading.current_thread().name for name in ran_in)
    assert in_caller == (threads == 0)


def test_the_byte_bound_settles_the_oldest_write_first() -> None:
    settled, settle_as = _recorder()
    queue = OutputQueue(4, 250)
    gate = threading.Event()
    queue.put(lambda: gate.wait(5) and "first", 200, settle_as("first"))
    assert settled == []
    gate.set()
    queue.put(lambda: "second", 200, settle_as("second"))  # 400 > 250: the first settles
    assert settled == [("first", "first")]
    queue.put(lambda: "big", 10_000, settle_as("big"))  # past the bound alone: still queued
    queue.finish()
    queue.close()
    assert settled == [("first", "first"), ("second", "second"), ("big", "big")]


def test_cancel_settles_the_writes_not_started_as_cancelled() -> None:
    settled, settle_as = _recorder()
    queue = OutputQueue(1, 1 << 20)
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def slow() -> str:
        started.set()
        release.wait(5)
        ran.append("slow")
        return "slow"

    queue.put(slow, 1, settle_as("slow"))  # one worker: the next write waits for it
    started.wait(5)
    queue.put(lambda: ran.append("later") or "later", 1, settle_as("later"))
    queue.cancel()
    release.set()
    queue.finish()
    queue.close()
    assert settled == [("slow", "slow"), ("later", "cancelled")]
    assert ran == ["slow"]  # the cancelled write never ran


@pytest.mark.parametrize("threads", [0, 2])
def test_a_failed_write_reaches_its_settle(threads: int) -> None:
    settled, settle_as = _recorder()
    queue = OutputQueue(threads, 1 << 20)

    def broken() -> None:
        raise OSError(28, "No space left on device")

    queue.put(broken, 1, settle_as("broken"))
    queue.put(lambda: "fine", 1, settle_as("fine"))
    queue.finish()
    queue.close()
    assert settled == [
        ("broken", "OSError(28, 'No space left on device')"),
        ("fine", "fine"),
    ]


def test_the_default_thread_count() -> None:
    assert write_threads(3) == 3
    assert write_threads(None, stop_on_error=True) == 0  # nothing written after a failure
    assert 1 <= write_threads(None) <= 8


def test_apply_with_write_threads_writes_and_reports_what_apply_without_them_does(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for number in range(12):  # photos, a broken file, a result JPEG cannot hold
        make_image("RGB", (60 + number, 40), number).save(folder / f"{number:02d}.png")
    (folder / "05.png").write_bytes(b"\x89PNG broken")
    make_image("RGBA", (30, 20), 3).save(folder / "07.png")
    runs = {}
    for threads in ("0", "4"):
        out = tmp_path / f"out-{threads}"
        argv = ["apply", "rotate:30", str(folder), "-o", str(out), "--format", "jpg"]
        assert main([*argv, "--no-progress", "--write-threads", threads]) == 1
        captured = capsys.readouterr()
        files = {path.name: path.read_bytes() for path in sorted(out.iterdir())}
        failed = [
            line.replace(str(out), "OUT")
            for line in captured.err.splitlines()
            if line.startswith("pillow-gpu: failed:")
        ]
        summary = captured.out.splitlines()[0].split(" in ")[0]
        runs[threads] = (files, failed, summary)
    assert runs["4"] == runs["0"]
    files, failed, summary = runs["0"]
    assert len(files) == 10
    assert [line.split(": ")[3] for line in failed] == [
        "UnidentifiedImageError at open",
        "OSError at save",
    ]
    assert summary == "pillow-gpu apply: 10 written, 2 failed, 0 refused"

"""A process forked after the GPU device was created gets clear errors, never a hang.

wgpu's threads and locks stay in the process that created the device, so in a forked process
every GPU call would wait forever (before this, ``evaluate`` and a ``multiprocessing`` pool of
the default ``fork`` method hung there). Each case runs in a fresh interpreter under a
timeout, so a regression fails the test instead of hanging the suite. The forked process ends
with ``os._exit``, as multiprocessing's workers do: on Mesa's lavapipe, a process forked after
the device was created crashes in the driver's exit handlers when it returns through
``exit()``, whatever it did (a driver limit, documented in the README).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from typing import Any

import pytest

pytestmark = [
    pytest.mark.usefixtures("device"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork exists on POSIX systems only"),
]

_PRELUDE = """
import json, os, sys
import numpy as np
from PIL import Image as PILImage, ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu.gpu import evaluate

SOURCE = PILImage.fromarray(np.arange(256, dtype=np.uint8).reshape(16, 16))
WANT = PILImageOps.invert(SOURCE).tobytes()

def graph():
    return ImageOps.invert(Image.from_pil(SOURCE))

def outcome(call):
    try:
        result = call()
    except Exception as error:
        return [type(error).__name__, getattr(error, "stage", None), str(error)]
    return ["ok", None, result]

def in_child(cases):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        found = {name: outcome(call) for name, call in cases.items()}
        os.write(write, json.dumps(found).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    _, status = os.waitpid(pid, 0)
    return {"status": status, **json.loads(data)}
"""


def _run(body: str) -> dict[str, Any]:
    """Run the prelude and ``body`` in a new session; on a timeout (a hang: the defect these
    tests guard against) kill its whole process group, forked processes included."""
    script = _PRELUDE + textwrap.dedent(body)
    with subprocess.Popen(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail("the script did not finish within 180 s: a GPU call hung")
    assert process.returncode == 0, stderr[-3000:]
    return dict(json.loads(stdout.strip().splitlines()[-1]))


def _assert_forked_refusal(found: list[Any], error: str, what: str) -> None:
    kind, stage, message = found
    assert (kind, stage) == (error, "device"), found
    assert message.startswith(f"why: {what} needs the GPU device of process "), message
    assert "which this one was forked from" in message
    assert "multiprocessing.get_context('spawn')" in message


def test_gpu_calls_in_a_forked_process_raise_and_the_parent_goes_on() -> None:
    found = _run(
        """
        executor = GpuBatchExecutor()
        resident = list(executor.run([(0, graph())], output="gpu"))[0]
        stream = executor.run(iter([(1, graph()), (2, graph())]))
        first = next(stream)
        child = in_child({
            "cpu": lambda: Image.from_pil(SOURCE).convert("L").tobytes() == SOURCE.tobytes()
            and ImageOps.invert(Image.from_pil(SOURCE)).tobytes() == WANT,
            "evaluate": lambda: evaluate(graph()),
            "new executor": GpuBatchExecutor,
            "inherited stream": lambda: next(stream),
            "inherited run": lambda: list(executor.run([(3, graph())])),
            "download": lambda: resident.image.download(),
            "close": lambda: executor.close(),
            "run after close": lambda: list(executor.run([(4, graph())])),
        })
        parent = [
            first.image.tobytes() == WANT,
            next(stream).image.tobytes() == WANT,
            resident.image.download().tobytes() == WANT,
            evaluate(graph()).tobytes() == WANT,
        ]
        del resident, first
        stream.close()
        executor.close()
        print(json.dumps({"child": child, "parent": parent, "stats": dict(executor.stats)}))
        """
    )
    child = found["child"]
    assert child["status"] == 0
    assert child["cpu"] == ["ok", None, True]
    _assert_forked_refusal(child["evaluate"], "DeviceError", "this call")
    _assert_forked_refusal(child["new executor"], "DeviceError", "this call")
    _assert_forked_refusal(child["inherited stream"], "ExecutionError", "this executor")
    _assert_forked_refusal(child["inherited run"], "ExecutionError", "this executor")
    _assert_forked_refusal(child["download"], "ExecutionError", "GpuImage.download()")
    assert child["close"] == ["ok", None, None]  # abandons the parent's work, fences nothing
    _assert_forked_refusal(child["run after close"], "ExecutionError", "this executor")
    assert found["parent"] == [True, True, True, True]
    assert found["stats"]["gpu_bytes"] == found["stats"]["live_jobs"] == 0


def test_a_fork_pool_worker_reports_the_refusal_and_runs_cpu_work() -> None:
    found = _run(
        """
        import multiprocessing

        def gpu_job(index):
            return evaluate(graph()).tobytes() == WANT

        def cpu_job(index):
            return ImageOps.invert(Image.from_pil(SOURCE)).tobytes() == WANT

        assert gpu_job(0)
        with multiprocessing.get_context("fork").Pool(2) as pool:
            cpu = pool.map(cpu_job, range(4), chunksize=1)
            try:
                pool.map(gpu_job, range(2), chunksize=1)
                gpu = ["ok", None, ""]
            except Exception as error:
                gpu = [type(error).__name__, error.stage, str(error)]
        print(json.dumps({"cpu": cpu, "gpu": gpu, "parent": gpu_job(1)}))
        """
    )
    assert found["cpu"] == [True] * 4
    _assert_forked_refusal(found["gpu"], "DeviceError", "this call")
    assert found["parent"] is True


def test_a_process_forked_before_the_device_was_created_uses_its_own() -> None:
    found = _run(
        """
        child = in_child({"evaluate": lambda: evaluate(graph()).tobytes() == WANT})
        print(json.dumps({"child": child, "parent": evaluate(graph()).tobytes() == WANT}))
        """
    )
    assert found["child"]["evaluate"] == ["ok", None, True]
    assert found["child"]["status"] == 0
    assert found["parent"] is True


def test_the_device_lock_held_by_another_thread_at_the_fork_does_not_block_the_child() -> None:
    found = _run(
        """
        from pillow_gpu.gpu import _device

        with _device._shared_lock:  # as a thread creating the device holds it at the fork
            child = in_child({"evaluate": lambda: evaluate(graph()).tobytes() == WANT})
        print(json.dumps({"child": child}))
        """
    )
    assert found["child"]["evaluate"] == ["ok", None, True]

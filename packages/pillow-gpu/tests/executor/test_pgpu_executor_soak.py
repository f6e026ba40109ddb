"""Soak: a few thousand jobs, a slow consumer, bounded pulls and bounded resident memory."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator

from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image

from .conftest import ZERO_KEYS, credits_now

Factory = Callable[..., GpuBatchExecutor]
JOBS = 3000
WARM_UP = 300
HOST_BYTES = 16 << 20
MAX_JOBS = 16


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_soak_slow_consumer_memory_and_credits(make_executor: Factory) -> None:
    sources = [make_image(mode, (24, 16), seed) for seed, mode in enumerate(("L", "RGB"))]
    expected = [PILImageOps.invert(source) for source in sources]
    pulled = 0

    def jobs() -> Iterator[tuple[int, Image.Image]]:
        nonlocal pulled
        for index in range(JOBS):
            pulled += 1
            yield index % 7, ImageOps.invert(Image.from_pil(sources[index % 2]))

    executor = make_executor(host_bytes=HOST_BYTES, max_jobs=MAX_JOBS)
    delivered = 0
    baseline = 0
    with executor.run(jobs()) as results:
        for result in results:
            delivered += 1
            time.sleep(0.0002)  # a consumer slower than the producer
            assert pulled <= delivered + MAX_JOBS + 1  # the slow consumer throttles the producer
            assert executor.stats["host_bytes"] <= HOST_BYTES
            if delivered % 97 == 0:  # the consumer checks a sample against live Pillow
                assert_image_equal(result.image, expected[result.job_id % 2])
            if delivered == WARM_UP:
                gc.collect()
                baseline = _rss_bytes()
    gc.collect()
    growth = _rss_bytes() - baseline
    assert delivered == JOBS
    print(f"soak: {JOBS} jobs, RSS growth after warm-up {growth / 2**20:.1f} MiB")
    assert growth <= HOST_BYTES + (64 << 20), f"RSS grew {growth} bytes after warm-up"
    assert credits_now(executor) == dict.fromkeys(ZERO_KEYS, 0)
    assert executor.stats["submitted_jobs"] == JOBS
    assert executor.stats["readback_bytes"] == JOBS // 2 * (24 * 16 + 24 * 16 * 4)

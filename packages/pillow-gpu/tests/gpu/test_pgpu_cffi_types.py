"""``gpu._cffi_types.parse_wgpu_types``: wgpu-py's cffi type cache filled in one parse.

In a fresh process (so that no earlier device filled the cache), the strings it adds are the
types cffi's own parse of each string alone gives (the ones wgpu-py asks for while a device
starts, and a seeded sample of the rest), a second call adds none, and the device then created
runs a chain byte-equal to Pillow. Where cffi's internals are not there, it adds nothing and
raises nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from pillow_gpu.gpu import _cffi_types

#: Strings wgpu-py asks cffi for while a device starts and runs its first chain.
ASKED = [
    "WGPURequestAdapterOptions *",
    "WGPUBufferDescriptor *",
    "WGPUBindGroupEntry[]",
    "WGPUCommandBuffer[]",
    "WGPUChainedStruct * ",
    "char []",
    "uint8_t []",
    "intptr_t",
    "void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)",  # a callback's signature
]

_PROBE = textwrap.dedent(
    """
    import json, random, sys
    from wgpu.backends.wgpu_native._ffi import ffi
    from pillow_gpu.gpu._cffi_types import parse_wgpu_types

    asked = json.loads(sys.argv[1])
    before = set(ffi._parsed_types)
    added = parse_wgpu_types()
    warmed = sorted(key for key in ffi._parsed_types if key not in before)
    sample = asked + random.Random(7).sample(warmed, 40)
    differ = []
    for cdecl in sample:
        alone = ffi._parser.parse_type(cdecl)
        with ffi._lock:
            kind = alone.as_function_pointer() if alone.is_raw_function else alone
            expected = (ffi._get_cached_btype(kind), alone.is_raw_function)
        if ffi._parsed_types.get(cdecl) != expected:
            differ.append(cdecl)
    again = parse_wgpu_types()

    from PIL import Image as PILImage, ImageOps
    from pillow_gpu import Image, ImageOps as GpuOps
    from pillow_gpu.executor import GpuBatchExecutor

    source = PILImage.radial_gradient("L").resize((40, 30)).convert("RGB")
    with GpuBatchExecutor() as executor:
        (result,) = executor.run([("one", GpuOps.invert(Image.from_pil(source)))])
    exact = result.image.tobytes() == ImageOps.invert(source).tobytes()
    print(json.dumps({"added": added, "warmed": len(warmed), "differ": differ,
                      "again": again, "exact": exact,
                      "asked": [cdecl in ffi._parsed_types for cdecl in asked]}))
    """
)


def test_one_parse_fills_the_cache_with_cffi_s_own_types() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(ASKED)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["added"] == found["warmed"] > 700  # every WGPU type, as "T *" and "T[]"
    assert found["asked"] == [True] * len(ASKED)
    assert found["differ"] == []
    assert found["again"] == 0
    assert found["exact"]


def test_without_cffi_s_internals_nothing_is_added(monkeypatch: pytest.MonkeyPatch) -> None:
    from wgpu.backends.wgpu_native import _ffi

    monkeypatch.setattr(_ffi, "ffi", object())
    assert _cffi_types.parse_wgpu_types() == 0

"""The software binary64 arithmetic of ``binary64.wgsli`` against the CPU's doubles.

resample_wide and reduce_wide reproduce Pillow's double loops only if each multiply, add,
conversion and ROUND_UP returns exactly what the CPU returns. A test kernel runs the library
on the adapter over operands chosen to reach every branch (exponent gaps of 0..70 bits,
carries into a new binade, cancellation down to zero, rounding ties both ways, products of
1..32-bit integers and of two doubles, quotients of two doubles, integers of 1..53 bits) and
its results are compared bit for bit with numpy's IEEE doubles.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
import wgpu
from pillow_gpu.gpu._device import SharedDevice, _expanded
from pillow_gpu.gpu.kernels.binary64 import double_words

pytestmark = pytest.mark.usefixtures("device")

_MAIN = """
@group(0) @binding(0) var<storage, read> cases: array<u32>;
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

fn f64_to_bits(x: F64) -> vec2<u32> {
    if (x.hi == 0u) {
        return vec2<u32>(0u, x.sign << 31u);
    }
    return vec2<u32>(x.lo, (x.sign << 31u) | (u32(x.exp + 1023) << 20u) | (x.hi & 0xFFFFFu));
}

fn put(at: u32, bits: vec2<u32>) {
    results[at] = bits.x;
    results[at + 1u] = bits.y;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = 8u * id.x;  // k (2 words), v, acc (2), n (low, high, sign)
    if (c >= arrayLength(&cases)) {
        return;
    }
    let k = f64_from_bits(cases[c], cases[c + 1u]);
    let word = cases[c + 2u];
    let sign = word >> 31u;
    let acc = f64_from_bits(cases[c + 3u], cases[c + 4u]);
    let product = f64_mul_int(k, select(word, 0u - word, sign == 1u), sign);
    let sum = f64_add(acc, product);
    let r = 12u * id.x;
    put(r, f64_to_bits(product));
    put(r + 2u, f64_to_bits(sum));
    results[r + 4u] = bitcast<u32>(f64_round_up(sum, 1234567, -7654321));
    put(r + 5u, f64_to_bits(f64_mul(acc, k)));
    put(r + 7u, f64_to_bits(f64_from_u64(cases[c + 7u], cases[c + 6u], cases[c + 5u])));
    if (k.hi != 0u) {
        put(r + 10u, f64_to_bits(f64_div(acc, k)));
    }
}
"""
_ABOVE, _BELOW = 1234567, -7654321  # stand-ins for the platform's out-of-range casts


def _run(device: SharedDevice, cases: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
    """Run the test kernel over (count, 8) input words; (count, 12) result words."""
    gpu = device.device
    source = _expanded("binary64.wgsli", set()) + _MAIN
    module = gpu.create_shader_module(code=source)
    pipeline = gpu.create_compute_pipeline(
        layout="auto", compute={"module": module, "entry_point": "main"}
    )
    data = np.ascontiguousarray(cases, dtype="<u4")
    count = len(data)
    inputs = gpu.create_buffer_with_data(data=data.tobytes(), usage=wgpu.BufferUsage.STORAGE)
    outputs = gpu.create_buffer(
        size=count * 48, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    )
    bind_group = gpu.create_bind_group(
        layout=pipeline.get_bind_group_layout(0),
        entries=[
            {"binding": 0, "resource": {"buffer": inputs}},
            {"binding": 1, "resource": {"buffer": outputs}},
        ],
    )
    encoder = gpu.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, bind_group)
    compute.dispatch_workgroups(-(-count // 64))
    compute.end()
    gpu.queue.submit([encoder.finish()])
    out = np.frombuffer(gpu.queue.read_buffer(outputs), dtype="<u4")
    return out.reshape(count, 12)


def _doubles(rng: np.random.Generator, count: int, low: int, high: int) -> npt.NDArray[np.float64]:
    """Random normal doubles with a random sign, mantissa and exponent in low..high."""
    mantissa = rng.integers(0, 1 << 52, count, dtype=np.uint64)
    exponent = rng.integers(low, high + 1, count).astype(np.uint64) + np.uint64(1023)
    sign = rng.integers(0, 2, count, dtype=np.uint64) << np.uint64(63)
    return (sign | (exponent << np.uint64(52)) | mantissa).view(np.float64)


def _integers(rng: np.random.Generator, count: int) -> npt.NDArray[np.int64]:
    """int32 values of 0..32 significant bits, both signs, with the extremes."""
    bits = rng.integers(0, 32, count)
    values = rng.integers(0, 1 << 62, count) >> (62 - bits)
    values = np.where(rng.integers(0, 2, count) == 1, -values, values)
    values[:6] = [0, 1, -1, 2**31 - 1, -(2**31), 65535]
    return values


def _round_up(value: float) -> int | None:
    """Pillow's ROUND_UP in Python doubles; None where C's cast is out of range."""
    rounded = value + 0.5 if value >= 0 else value - 0.5
    if not -(2.0**31) - 1 < rounded < 2.0**31:
        return None
    return math.trunc(rounded)


def _cases(seed: int) -> tuple[npt.NDArray[np.float64], ...]:
    rng = np.random.default_rng(seed)
    count = 1 << 14
    k = _doubles(rng, count, -60, 4)
    k[:8] = [0.0, -0.0, 1.0, -1.0, 0.5, 0.25, 1.0 - 2.0**-53, 2.0**-60]
    v = _integers(rng, count).astype(np.float64)
    product = v * k
    # Accumulators: zeros, far apart (exponent gaps up to 70 bits), close to -product
    # (cancellation), close to +product (carries), and half-integers near ROUND_UP's ties.
    kind = rng.integers(0, 6, count)
    gap = rng.integers(-70, 71, count).astype(np.float64)
    far = _doubles(rng, count, -30, 30)
    near = -product * (1.0 + _doubles(rng, count, -60, -1))
    near_exact = -product + np.where(rng.integers(0, 2, count) == 1, 1.0, -1.0) * np.abs(
        product
    ) * 2.0 ** -rng.integers(1, 60, count)
    halves = (rng.integers(-(2**31), 2**31, count) + 0.5) * np.where(
        rng.integers(0, 4, count) == 0, 1.0, 2.0 ** -rng.integers(0, 31, count)
    )
    scaled = product * 2.0**gap
    acc = np.select(
        [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4],
        [np.zeros(count), scaled, near, near_exact, far],
        halves,
    )
    # ROUND_UP edges: with v = 0 the sum is the accumulator itself.
    edges = [
        0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994, -0.49999999999999994,
        np.nextafter(0.5, 1.0), np.nextafter(-2.5, 0.0), 2.0**31 - 0.5, 2.0**31 - 1.0,
        np.nextafter(2.0**31 - 0.5, 0.0), -(2.0**31) - 0.5, -(2.0**31) - 1.0, 2.0**31,
        -(2.0**31), 4503599627370495.5, 1e300, -1e300, 2.0**-900, -0.0,
    ]  # fmt: skip
    v[-len(edges) :] = 0.0
    acc[-len(edges) :] = edges
    return k, v, acc


def _pairs(values: npt.NDArray[np.float64]) -> npt.NDArray[np.uint32]:
    return double_words(values).reshape(-1, 2)  # the kernels' host side packs the same way


def _mismatches(got: npt.NDArray[np.uint32], want: npt.NDArray[np.float64]) -> list[int]:
    return np.nonzero((got != _pairs(want)).any(axis=1))[0].tolist()


@pytest.mark.parametrize("seed", range(4), ids=lambda seed: f"seed{seed}")
def test_arithmetic_matches_the_cpu(device: SharedDevice, seed: int) -> None:
    k, v, acc = _cases(seed)
    rng = np.random.default_rng(seed)
    n = rng.integers(-(2**53) + 1, 2**53, len(k)) >> rng.integers(0, 53, len(k))
    n[:3] = [0, 2**53 - 1, -(2**53) + 1]
    cases = np.zeros((len(k), 8), dtype=np.uint32)
    cases[:, 0:2] = _pairs(k)
    cases[:, 2] = v.astype(np.int64).astype(np.int32).view(np.uint32)
    cases[:, 3:5] = _pairs(acc)
    magnitude = np.abs(n).astype(np.uint64)
    cases[:, 5] = (magnitude & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    cases[:, 6] = (magnitude >> np.uint64(32)).astype(np.uint32)
    cases[:, 7] = (n < 0).astype(np.uint32)
    got = _run(device, cases)

    product = v * k
    total = acc + product
    for name, columns, want in (
        ("k * v", slice(0, 2), product),
        ("acc + k * v", slice(2, 4), total),
        ("acc * k", slice(5, 7), acc * k),
        ("double(n)", slice(7, 9), n.astype(np.float64)),
    ):
        bad = _mismatches(got[:, columns], want)
        assert not bad, (name, [(k[i], v[i], acc[i], n[i]) for i in bad[:5]])
    # acc / k where k is not zero and the quotient is a normal double or zero
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        quotient = acc / k
    normal = (k != 0) & np.isfinite(quotient)
    normal &= (quotient == 0) | (np.abs(quotient) >= np.finfo(np.float64).tiny)
    assert normal.sum() > len(k) * 0.9
    bad = _mismatches(got[normal][:, 10:12], quotient[normal])
    assert not bad, ("acc / k", [(acc[normal][i], k[normal][i]) for i in bad[:5]])
    rounded = got[:, 4].view(np.int32)
    for i, value in enumerate(total.tolist()):
        want = _round_up(value)
        if want is None:
            want = _ABOVE if value > 0 else _BELOW
        assert rounded[i] == want, (value, int(rounded[i]), want)


def test_cases_reach_every_branch() -> None:
    """The operands really exercise the paths the docstring names (not a tautology check of
    the kernel: of the generated data)."""
    k, v, acc = _cases(0)
    product = v * k
    total = acc + product
    both = (acc != 0) & (product != 0)
    exponent_gap = np.abs(np.frexp(acc)[1] - np.frexp(product)[1])[both]
    assert exponent_gap.max() >= 64
    assert (exponent_gap == 0).any()
    assert ((total == 0) & both).any()  # exact cancellation
    cancelled = both & (np.frexp(total)[1] < np.minimum(np.frexp(acc)[1], np.frexp(product)[1]) - 5)
    assert cancelled.sum() > 100
    exact_ties = np.abs(total - np.trunc(total)) == 0.5
    assert exact_ties.sum() > 100
    assert any(_round_up(value) is None for value in total.tolist())

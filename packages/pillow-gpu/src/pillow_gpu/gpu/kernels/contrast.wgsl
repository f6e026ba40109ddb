// ImageEnhance.Contrast's blend: out byte j = table[d_j * 256 + s_j], where s is the source
// word, table is Pillow's float32 blend for the factor (host 256x256 table, a = degenerate
// byte, b = source byte) and d is the degenerate word Pillow builds from the mean:
// Image.new("L", size, mean).convert(mode), with the source alpha put back.
//
// The mean comes from total, the exact sum of the L conversion written by the sum_l dispatch
// earlier in the same submission as two words (total[0] + total[1] * 2^32): mean =
// int(sum / count + 0.5) computed in integers as q + (2r >= count), q = sum / count,
// r = sum % count (proof in kernels/contrast.py), by divide_small.
struct Params {
    width: u32, height: u32, count: u32, _pad0: u32,
    sel0: u32, sel1: u32, sel2: u32, sel3: u32,
    const0: u32, const1: u32, const2: u32, const3: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> total: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;
@group(0) @binding(4) var<storage, read> table: array<u32>;

// Selector codes (kernels/contrast.py): 0 the mean, 1 255 - mean, 2 a constant, 3 the source.
fn degenerate(selector: u32, constant: u32, mean: u32, source: u32) -> u32 {
    switch selector {
        case 0u: { return mean; }
        case 1u: { return 255u - mean; }
        case 2u: { return constant; }
        default: { return source; }
    }
}

// (q, r) of (hi * 2^32 + lo) / count by restoring division, one quotient bit a step from bit 7
// down: exact when the quotient is below 256 (sum <= 255 * count) and count < 2^31 (so the
// shifted divisor count << s, s <= 7, is below 2^38 and its high word count >> (32 - s)).
// What is left of the dividend is below count once bit 0 is done, so its high word is 0.
fn divide_small(hi_in: u32, lo_in: u32, count: u32) -> vec2<u32> {
    var hi = hi_in;
    var lo = lo_in;
    var q = 0u;
    for (var step = 0u; step < 8u; step++) {
        let s = 7u - step;
        let d_lo = count << s;
        let d_hi = select(0u, count >> (32u - s), s > 0u);
        if (hi > d_hi || (hi == d_hi && lo >= d_lo)) {
            hi = hi - d_hi - select(0u, 1u, lo < d_lo);
            lo = lo - d_lo;
            q = q | (1u << s);
        }
    }
    return vec2<u32>(q, lo);
}

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let base = lane_start(arrayLength(&total), id.z, groups.z);
    let qr = divide_small(total[base + 1u], total[base], p.count);
    let mean = qr.x + select(0u, 1u, 2u * qr.y >= p.count);
    let selectors = vec4<u32>(p.sel0, p.sel1, p.sel2, p.sel3);
    let constants = vec4<u32>(p.const0, p.const1, p.const2, p.const3);
    let i = id.y * p.width + id.x;
    let s = src[lane_start(arrayLength(&src), id.z, groups.z) + i];
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let shift = 8u * j;
        let b = (s >> shift) & 255u;
        let a = degenerate(selectors[j], constants[j], mean, b);
        out = out | (table[a * 256u + b] << shift);
    }
    dst[lane_start(arrayLength(&dst), id.z, groups.z) + i] = out;
}

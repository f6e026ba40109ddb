// Per-pixel conversions of wide words (see convert_wide.py): the source value is word & mask.
// op 0 CLAMP: int32 clipped to a..b; 1 TO_F: int32 -> float32 bits, round to nearest even;
// 2 F_TO_L: Pillow's f2l (a: the NaN result); 3 F_TO_I: Pillow's f2i (a: NaN, b: >= 2^31,
// c: < -2^31 results). Float work is done on the bits only.
struct Params {
    pixels: u32, op: u32, mask: u32, a: u32,
    b: u32, c: u32, groups_x: u32, _pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn int_to_float_bits(x: i32) -> u32 {
    if (x == 0) {
        return 0u;
    }
    let negative = x < 0;
    let raw = bitcast<u32>(x);
    let magnitude = select(raw, 0u - raw, negative);
    let msb = 31u - countLeadingZeros(magnitude);
    var exponent = msb + 127u;
    var mantissa = 0u;
    if (msb <= 23u) {
        mantissa = magnitude << (23u - msb);
    } else {
        let shift = msb - 23u;  // 1..8
        mantissa = magnitude >> shift;
        let rest = magnitude & ((1u << shift) - 1u);
        let half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (mantissa & 1u) == 1u)) {
            mantissa = mantissa + 1u;
            if (mantissa == 0x1000000u) {
                mantissa = mantissa >> 1u;
                exponent = exponent + 1u;
            }
        }
    }
    return select(0u, 0x80000000u, negative) | (exponent << 23u) | (mantissa & 0x7FFFFFu);
}

fn is_nan(bits: u32) -> bool {
    return ((bits >> 23u) & 255u) == 255u && (bits & 0x7FFFFFu) != 0u;
}

fn float_to_l(bits: u32) -> u32 {
    if (is_nan(bits)) {
        return p.a;
    }
    if ((bits >> 31u) == 1u) {  // v <= 0 (negative zero included)
        return 0u;
    }
    if (bits >= 0x437F0000u) {  // v >= 255.0, +inf included
        return 255u;
    }
    let exponent = bits >> 23u;
    if (exponent < 127u) {  // 0 <= v < 1
        return 0u;
    }
    return ((bits & 0x7FFFFFu) | 0x800000u) >> (150u - exponent);  // truncation
}

fn float_to_i(bits: u32) -> u32 {
    if (is_nan(bits)) {
        return p.a;
    }
    let negative = (bits >> 31u) == 1u;
    let exponent = (bits >> 23u) & 255u;
    if (exponent < 127u) {  // |v| < 1
        return 0u;
    }
    if (exponent >= 158u) {  // |v| >= 2^31, infinities included
        if (bits == 0xCF000000u) {  // exactly -2^31
            return 0x80000000u;
        }
        return select(p.b, p.c, negative);
    }
    let full = (bits & 0x7FFFFFu) | 0x800000u;
    let shift = exponent - 127u;  // 0..30
    var magnitude = 0u;
    if (shift >= 23u) {
        magnitude = full << (shift - 23u);
    } else {
        magnitude = full >> (23u - shift);
    }
    return select(magnitude, 0u - magnitude, negative);
}

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (i >= p.pixels) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, groups.z);
    let d = lane_start(arrayLength(&dst), wid.z, groups.z);
    let word = src[s + i] & p.mask;
    var out = 0u;
    if (p.op == 0u) {
        out = bitcast<u32>(clamp(bitcast<i32>(word), bitcast<i32>(p.a), bitcast<i32>(p.b)));
    } else if (p.op == 1u) {
        out = int_to_float_bits(bitcast<i32>(word));
    } else if (p.op == 2u) {
        out = float_to_l(word);
    } else {
        out = float_to_i(word);
    }
    dst[d + i] = out;
}

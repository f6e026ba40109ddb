// One separable pass of Pillow's 16/32-bit resampling (ImagingResample{Horizontal,Vertical}_
// {16,32}bpc): per output, ss = 0.0; ss += value * k for each tap in order, in doubles; then
// ROUND_UP(ss). table[2i], table[2i+1]: first input and tap count of output i along the pass
// axis; then `ksize` doubles per output as (low word, high word) of their IEEE bits. Input
// words are read at column (axis 0) or row (axis 1) `first + t`, and at row / column
// `other + offset` on the other axis.
//
// KIND 0 (I;16, I;16L): the value is the word's low 16 bits; the result ROUND_UP(ss) clamped
// to 0..65535 (live Pillow 13; lowering.resample checks it). KIND 1 (I;16B): Pillow reads and
// writes the two bytes of I;16B in little-endian order on little-endian machines, so the value
// and the result are KIND 0's byte-swapped. KIND 2 (I): the word is an int32 and the result
// ROUND_UP(ss).
//
// Method: one output per invocation, the double arithmetic in software (binary64.wgsli), which
// reproduces every rounding of Pillow's C loop.
struct Params {
    dst_w: u32, dst_h: u32, src_w: u32, offset: u32,
    ksize: u32, count: u32, above: i32, below: i32,
}

override AXIS: u32 = 0u;
override KIND: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;

//!include stacked.wgsli

//!include binary64.wgsli

fn swap16(v: u32) -> u32 {
    return ((v & 0xFFu) << 8u) | ((v >> 8u) & 0xFFu);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.dst_w || id.y >= p.dst_h) {
        return;
    }
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let i = select(id.x, id.y, AXIS == 1u);  // output index along the pass axis
    let first = table[2u * i];
    let taps = table[2u * i + 1u];
    let weights = 2u * p.count + 2u * i * p.ksize;
    var at: u32;
    var step: u32;
    if (AXIS == 0u) {
        at = s + (id.y + p.offset) * p.src_w + first;
        step = 1u;
    } else {
        at = s + first * p.src_w + id.x + p.offset;
        step = p.src_w;
    }
    var ss = F64(0u, 0, 0u, 0u);
    for (var t = 0u; t < taps; t++) {
        let k = f64_from_bits(table[weights + 2u * t], table[weights + 2u * t + 1u]);
        let word = src[at];
        var magnitude = word & 0xFFFFu;
        var sign = 0u;
        if (KIND == 1u) {
            magnitude = swap16(magnitude);
        } else if (KIND == 2u) {
            sign = word >> 31u;
            magnitude = select(word, 0u - word, sign == 1u);
        }
        ss = f64_add(ss, f64_mul_int(k, magnitude, sign));
        at = at + step;
    }
    let r = f64_round_up(ss, p.above, p.below);
    var out = bitcast<u32>(r);
    if (KIND != 2u) {
        out = u32(clamp(r, 0, 65535));
        if (KIND == 1u) {
            out = swap16(out);
        }
    }
    dst[d + id.y * p.dst_w + id.x] = out;
}

// One separable pass of Pillow's 8-bit resampling (ImagingResample{Horizontal,Vertical}_8bpc),
// for windows longer than resample.wgsl's uniform table holds (downscales by several hundred).
// table[2i], table[2i+1]: first input and tap count of output i along the pass axis; then
// `ksize` fixed-point weights (22 fraction bits) per output. Input words are read at column
// (axis 0) or row (axis 1) `first + t`, and at row / column `other + offset` on the other axis.
// Bytes outside `mask` are written as 0 (RGB padding; LA bytes 1 and 2).
//
// Method: each invocation computes four outputs side by side across the pass axis (rows
// 4y..4y+3 of column x in a horizontal pass, columns 4x..4x+3 of row y in a vertical one).
// They share the pass-axis index, so one bounds pair and one weight load serve four word loads
// per tap (llvmpipe runs such a loop 1.7x faster than one output per invocation).
struct Params {
    dst_w: u32, dst_h: u32, src_w: u32, axis: u32,
    offset: u32, ksize: u32, mask: u32, count: u32,
}

// The pass axis is a pipeline constant (`p.axis` holds the same value): lavapipe runs both
// sides of a uniform branch, so each axis compiles without the other's loads.
override AXIS: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<i32>;

//!include stacked.wgsli

//!include resample_fixed.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = select(id.x, id.y, AXIS == 1u);  // output index along the pass axis
    let along = select(p.dst_w, p.dst_h, AXIS == 1u);
    let across = select(p.dst_h, p.dst_w, AXIS == 1u);
    let other = 4u * select(id.y, id.x, AXIS == 1u);  // first of the four outputs across it
    if (i >= along || other >= across) {
        return;
    }
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let first = u32(table[2u * i]);
    let taps = u32(table[2u * i + 1u]);
    let weights = 2u * p.count + i * p.ksize;
    // Outputs past the image's edge read its last row / column and are never written.
    let others = min(vec4<u32>(other) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(across - 1u));
    var at: vec4<u32>;
    var step: u32;
    if (AXIS == 0u) {
        at = vec4<u32>(s + first) + (others + vec4<u32>(p.offset)) * p.src_w;
        step = 1u;
    } else {
        at = vec4<u32>(s + first * p.src_w + p.offset) + others;
        step = p.src_w;
    }
    var s0 = vec4<i32>(2097152);  // 1 << (PRECISION_BITS - 1)
    var s1 = s0;
    var s2 = s0;
    var s3 = s0;
    for (var t = 0u; t < taps; t++) {
        let k = table[weights + t];
        s0 = s0 + bytes4(src[at.x]) * k;
        s1 = s1 + bytes4(src[at.y]) * k;
        s2 = s2 + bytes4(src[at.z]) * k;
        s3 = s3 + bytes4(src[at.w]) * k;
        at = at + vec4<u32>(step);
    }
    let bytes = kept_bytes(p.mask);
    let inside = inside4(other, across);
    // Output k of the four sits at (i, other + k) in pass coordinates.
    let base = d + select(other * p.dst_w + i, i * p.dst_w + other, AXIS == 1u);
    let unit = select(p.dst_w, 1u, AXIS == 1u);
    dst[base] = clip8(s0, bytes);
    if (inside.y) {
        dst[base + unit] = clip8(s1, bytes);
    }
    if (inside.z) {
        dst[base + 2u * unit] = clip8(s2, bytes);
    }
    if (inside.w) {
        dst[base + 3u * unit] = clip8(s3, bytes);
    }
}

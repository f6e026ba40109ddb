// One separable pass of Pillow's 8-bit resampling (ImagingResample{Horizontal,Vertical}_8bpc):
// per output, ss = 1 << 21 + sum(byte * k) over its taps in 32-bit ints (22 fraction bits), then
// clip8(ss >> 22), per byte lane. Bytes outside `mask` are written as 0 (RGB padding; LA bytes
// 1 and 2).
//
// Method: blocked windows. Outputs go four at a time along the pass axis (a block), and the
// host merges a block's four tap ranges into one dense window: block b reads inputs
// first_b .. first_b + count_b - 1 along the axis and weighs input first_b + t with one vec4,
// the weight of each of its four outputs (0 where an output does not read that input). Integer
// sums do not depend on their order and a zero weight adds nothing, so this is Pillow's
// arithmetic exactly. Each input word is loaded once for four outputs: (ksize + 3 * scale) / 4
// loads per output where one output at a time loads ksize (7.3 against 17 for a BICUBIC
// quarter). A workgroup row serves one block, its invocations running across the axis (rows of
// a horizontal pass, columns of a vertical one). The windows and weights are read through a
// uniform binding: on lavapipe such a read costs about a quarter of a storage read of one word
// (resample.py splits a pass into dispatches whose tables fit the binding; resample_long.wgsl
// takes windows longer than one binding holds).
struct Params {
    dst_w: u32, dst_h: u32, src_w: u32, offset: u32,
    first_block: u32, blocks: u32, span: u32, mask: u32,
}

// The pass axis is a pipeline constant: lavapipe runs both sides of a uniform branch, so each
// axis compiles without the other's address arithmetic.
override AXIS: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
// This dispatch's blocks: table[k] = (first input, inputs read, 0, 0) of block first_block + k,
// for k < p.blocks; then p.span weight vectors per block from table[p.blocks + k * p.span].
@group(0) @binding(3) var<uniform> table: array<vec4<i32>, 4096>;

//!include stacked.wgsli

//!include resample_fixed.wgsli

// Workgroup (x, y) computes block first_block + y of lines 256x .. 256x + 255 across the axis.
@compute @workgroup_size(16, 16)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = wid.y;
    let line = wid.x * 256u + lid;  // the row (horizontal pass) or column (vertical) computed
    let along = select(p.dst_w, p.dst_h, AXIS == 1u);
    let across = select(p.dst_h, p.dst_w, AXIS == 1u);
    if (k >= p.blocks || line >= across) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, groups.z);
    let d = lane_start(arrayLength(&dst), wid.z, groups.z);
    let window = table[k];
    var at: u32;
    var step: u32;
    if (AXIS == 0u) {
        at = s + (line + p.offset) * p.src_w + u32(window.x);
        step = 1u;
    } else {
        at = s + u32(window.x) * p.src_w + p.offset + line;
        step = p.src_w;
    }
    let weights = p.blocks + k * p.span;
    var s0 = vec4<i32>(2097152);  // 1 << (PRECISION_BITS - 1)
    var s1 = s0;
    var s2 = s0;
    var s3 = s0;
    for (var t = 0u; t < u32(window.y); t++) {
        let v = bytes4(src[at]);
        let w = table[weights + t];
        s0 = s0 + v * w.x;
        s1 = s1 + v * w.y;
        s2 = s2 + v * w.z;
        s3 = s3 + v * w.w;
        at = at + step;
    }
    let bytes = kept_bytes(p.mask);
    // Output j of the block sits at (4 * block + j, line) in pass coordinates.
    let i = 4u * (p.first_block + k);
    let base = d + select(line * p.dst_w + i, i * p.dst_w + line, AXIS == 1u);
    let unit = select(1u, p.dst_w, AXIS == 1u);
    dst[base] = clip8(s0, bytes);
    if (i + 1u < along) {
        dst[base + unit] = clip8(s1, bytes);
    }
    if (i + 2u < along) {
        dst[base + 2u * unit] = clip8(s2, bytes);
    }
    if (i + 3u < along) {
        dst[base + 3u * unit] = clip8(s3, bytes);
    }
}

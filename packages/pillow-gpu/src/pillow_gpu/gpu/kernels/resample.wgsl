// One separable pass of Pillow's 8-bit resampling (ImagingResample{Horizontal,Vertical}_8bpc).
// table[2i], table[2i+1]: first input and tap count of output i along the pass axis; then
// `ksize` fixed-point weights (22 fraction bits) per output. Input words are read at column
// (axis 0) or row (axis 1) `first + t`, and at row / column `id + offset` on the other axis.
// Bytes outside `mask` are written as 0 (RGB padding; LA bytes 1 and 2).
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
    let i = select(id.x, id.y, AXIS == 1u);
    let first = u32(table[2u * i]);
    let taps = u32(table[2u * i + 1u]);
    let weights = 2u * p.count + i * p.ksize;
    var ss = vec4<i32>(2097152);  // 1 << (PRECISION_BITS - 1)
    for (var t = 0u; t < taps; t++) {
        var word: u32;
        if (AXIS == 0u) {
            word = src[s + (id.y + p.offset) * p.src_w + first + t];
        } else {
            word = src[s + (first + t) * p.src_w + id.x + p.offset];
        }
        let bytes = vec4<i32>(
            i32(word & 255u), i32((word >> 8u) & 255u), i32((word >> 16u) & 255u), i32(word >> 24u)
        );
        ss = ss + bytes * table[weights + t];
    }
    let clipped = vec4<u32>(clamp(ss >> vec4<u32>(22u), vec4<i32>(0), vec4<i32>(255)));
    let bytes = (p.mask & 1u) * 0xFFu | (p.mask & 2u) * 0x7F80u | (p.mask & 4u) * 0x3FC000u
        | (p.mask & 8u) * 0x1FE00000u;
    dst[d + id.y * p.dst_w + id.x] =
        (clipped.x | (clipped.y << 8u) | (clipped.z << 16u) | (clipped.w << 24u)) & bytes;
}

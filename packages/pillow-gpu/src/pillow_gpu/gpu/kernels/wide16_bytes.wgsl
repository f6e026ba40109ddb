// The stored bytes of a 16-bit image (I;16, I;16L, I;16B) as an L image, and back.
//
// Pillow's BILINEAR and BICUBIC transforms pick their filter by the source's storage
// (Geometry.c's getfilter): the 2-byte modes keep 8-bit row pointers, so they get the 8-bit
// filters, which read pixel x of a row as the row's stored byte x and write one byte, the
// first stored byte of the output pixel (Image.new's fill keeps the other). TO_BYTES = 1 writes
// that L image: pixel x of row y is stored byte x of row y, byte x % 2 of 16-bit pixel x / 2
// in the mode's byte order. TO_BYTES = 0 puts an L result back as each pixel's first stored
// byte: value = (v << 8) | keep for I;16B (its first byte is the high one), v | keep for the
// little-endian modes, `keep` being the fill's other byte.
struct Params { width: u32, count: u32, keep: u32, groups_x: u32 }

override TO_BYTES: u32 = 1u;
override BIG_ENDIAN: u32 = 0u;
//!include stacked.wgsli

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let i = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (i >= p.count) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, n.z);
    let d = lane_start(arrayLength(&dst), wid.z, n.z);
    if (TO_BYTES == 1u) {
        let x = i % p.width;
        let word = src[s + (i - x) + (x >> 1u)];  // row start + pixel x / 2
        let byte = select(x & 1u, 1u - (x & 1u), BIG_ENDIAN == 1u);  // 0: the low half
        dst[d + i] = (word >> (8u * byte)) & 255u;
        return;
    }
    dst[d + i] = ((src[s + i] & 255u) << select(0u, 8u, BIG_ENDIAN == 1u)) | p.keep;
}

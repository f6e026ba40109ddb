// Upload widening: Pillow's packed stored bytes (rows back to back) -> one u32 per pixel.
// kind 0: a byte (L); 1: a byte repeated in all four bytes (P, 1); 2: an LA pair -> L in
// bytes 0..2, A in byte 3; 3: a little-endian u16 (I;16, I;16L); 4: a big-endian u16 (I;16B).
struct Params { pixels: u32, _kind: u32, groups_x: u32, _pad0: u32 }

// The kind is a pipeline constant: each compiles without the other kinds' branches.
override KIND: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

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
    var out = 0u;
    if (KIND <= 1u) {
        let byte = (src[s + i / 4u] >> (8u * (i % 4u))) & 255u;
        out = select(byte, byte * 0x01010101u, KIND == 1u);
    } else {
        let pair = (src[s + i / 2u] >> (16u * (i % 2u))) & 0xFFFFu;  // stored byte 0 in bits 0..7
        let lo = pair & 255u;
        let hi = pair >> 8u;
        if (KIND == 2u) {
            out = lo * 0x010101u | (hi << 24u);
        } else if (KIND == 3u) {
            out = pair;
        } else {
            out = (lo << 8u) | hi;
        }
    }
    dst[d + i] = out;
}

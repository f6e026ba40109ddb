// Terminal packing of a mode with two stored bytes per pixel: the two bytes of two pixels'
// words into one u32 word, each pixel as Pillow stores it. Kinds: 0 a 16-bit value in the low
// half, little-endian (I;16, I;16L); 1 the same value big-endian (I;16B); 2 a pair mode's bands
// from bytes 0 and 3 (LA, La, PA: band 0 repeated in bytes 0..2, band 1 in byte 3).
struct Params { pixels: u32, words: u32, kind: u32, groups_x: u32 }

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
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.words) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, groups.z);
    let d = lane_start(arrayLength(&dst), wid.z, groups.z);
    var out = 0u;
    for (var j = 0u; j < 2u; j++) {
        let i = 2u * k + j;
        if (i < p.pixels) {
            let w = src[s + i];
            var v = w & 0xFFFFu;
            if (p.kind == 1u) {
                v = ((v & 255u) << 8u) | (v >> 8u);
            } else if (p.kind == 2u) {
                v = (w & 255u) | ((w >> 24u) << 8u);
            }
            out = out | (v << (16u * j));
        }
    }
    dst[d + k] = out;
}

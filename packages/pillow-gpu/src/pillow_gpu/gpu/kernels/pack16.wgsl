// Terminal packing of a 16-bit image: two u32-per-pixel values (low half) into one u32 word,
// each as Pillow stores it (little-endian, or big-endian bytes for I;16B).
struct Params { pixels: u32, words: u32, big_endian: u32, groups_x: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.words) {
        return;
    }
    var out = 0u;
    for (var j = 0u; j < 2u; j++) {
        let i = 2u * k + j;
        if (i < p.pixels) {
            var v = src[i] & 0xFFFFu;
            if (p.big_endian == 1u) {
                v = ((v & 255u) << 8u) | (v >> 8u);
            }
            out = out | (v << (16u * j));
        }
    }
    dst[k] = out;
}

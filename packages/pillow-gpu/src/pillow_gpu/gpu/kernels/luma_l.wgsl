// RGB, RGBA and RGBX -> L written as Pillow's L bytes, four pixels to a packed word
// (gpu/_packed_l.py): Pillow's rgb2l, the ITU-R 601-2 luma (19595 R + 38470 G + 7471 B
// + 0x8000) >> 16 of each pixel's stored bytes 0..2, its byte 3 ignored. One invocation reads
// four pixels (one vec4 of the one-word-per-pixel source) and writes one word; bytes past the
// last pixel are 0. The general convert kernel computes every conversion's bytes for each
// pixel (lavapipe runs every branch) and writes a word per pixel for pack_l to pack.
struct Params { pixels: u32, words: u32, _pad0: u32, groups_x: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.words) {
        return;
    }
    let v = src[lane_start(arrayLength(&src), wid.z, n.z) + k];
    let r = v & vec4<u32>(255u);
    let g = (v >> vec4<u32>(8u)) & vec4<u32>(255u);
    let b = (v >> vec4<u32>(16u)) & vec4<u32>(255u);
    var l = (19595u * r + 38470u * g + 7471u * b + vec4<u32>(0x8000u)) >> vec4<u32>(16u);
    // the last word's pixels past the image: 0
    l = select(vec4<u32>(0u), l, inside4(4u * k, p.pixels));
    dst[lane_start(arrayLength(&dst), wid.z, n.z) + k] = l.x | (l.y << 8u) | (l.z << 16u) | (l.w << 24u);
}

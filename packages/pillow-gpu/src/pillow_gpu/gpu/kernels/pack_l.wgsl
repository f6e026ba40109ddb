// L as Pillow's bytes (four pixels to a word) from one u32 word per pixel, one vec4 of the
// source per invocation; bytes past the last pixel are 0. BAND (a pipeline constant) picks
// each pixel's byte: 0..3 its stored byte BAND (the terminal of an L image, getchannel, LA ->
// L); 4 the ITU-R 601-2 luma of its bytes 0..2, (19595 R + 38470 G + 7471 B + 0x8000) >> 16,
// Pillow's rgb2l (RGB, RGBA, RGBX -> L).
struct Params { pixels: u32, words: u32, groups_x: u32, _pad0: u32 }

override BAND: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
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
    // Image buffers are whole vectors (gpu/_stack.py): the last vector is inside the lane.
    let v = src[lane_start(arrayLength(&src), wid.z, groups.z) + k];
    var b: vec4<u32>;
    if (BAND == 4u) {
        let r = v & vec4<u32>(255u);
        let g = (v >> vec4<u32>(8u)) & vec4<u32>(255u);
        let c = (v >> vec4<u32>(16u)) & vec4<u32>(255u);
        b = (19595u * r + 38470u * g + 7471u * c + vec4<u32>(0x8000u)) >> vec4<u32>(16u);
    } else {
        b = (v >> vec4<u32>(8u * BAND)) & vec4<u32>(255u);
    }
    b = select(vec4<u32>(0u), b, inside4(4u * k, p.pixels));
    dst[lane_start(arrayLength(&dst), wid.z, groups.z) + k] =
        b.x | (b.y << 8u) | (b.z << 16u) | (b.w << 24u);
}

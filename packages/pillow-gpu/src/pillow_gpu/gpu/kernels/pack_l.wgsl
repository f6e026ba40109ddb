// L as Pillow's bytes (four pixels to a word) from one u32 word per pixel, one vec4 of the
// source per invocation; bytes past the last pixel are 0. BAND (a pipeline constant) picks
// each pixel's byte: 0..3 its stored byte BAND (the terminal of an L image, getchannel, LA ->
// L); 4 the luma of its bytes 0..2, Pillow's rgb2l (RGB, RGBA, RGBX -> L; luma.wgsli).
struct Params { pixels: u32, words: u32, groups_x: u32, _pad0: u32 }

override BAND: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli
//!include luma.wgsli

// Stored bytes 0..2 of a word.
fn rgb_of(w: u32) -> vec3<u32> {
    return (vec3<u32>(w) >> vec3<u32>(0u, 8u, 16u)) & vec3<u32>(255u);
}

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
        b = vec4<u32>(luma(rgb_of(v.x)), luma(rgb_of(v.y)), luma(rgb_of(v.z)), luma(rgb_of(v.w)));
    } else {
        b = (v >> vec4<u32>(8u * BAND)) & vec4<u32>(255u);
    }
    b = select(vec4<u32>(0u), b, inside4(4u * k, p.pixels));
    dst[lane_start(arrayLength(&dst), wid.z, groups.z) + k] =
        b.x | (b.y << 8u) | (b.z << 16u) | (b.w << 24u);
}

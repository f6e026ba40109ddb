// Upload widening: Pillow's packed stored bytes (rows back to back) -> one u32 per pixel.
// kind 0: a byte (L); 1: a byte repeated in all four bytes (P, 1); 2: an LA pair -> L in
// bytes 0..2, A in byte 3; 3: a little-endian u16 (I;16, I;16L); 4: a big-endian u16 (I;16B);
// 5: an L byte as Pillow's l2rgb writes it: the byte in bytes 0..2, 255 in byte 3 (L -> RGB,
// RGBA, RGBX and LA, which store those same four bytes).
struct Params { pixels: u32, _kind: u32, _pad0: u32, groups_x: u32 }

// The kind is a pipeline constant: each compiles without the other kinds' branches.
override KIND: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

//!include stacked.wgsli

// The four pixels of one packed byte word.
fn bytes4(w: u32) -> vec4<u32> {
    return (vec4<u32>(w) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
}

// The four pixels of two packed pair words (stored byte 0 of each pair in bits 0..7).
fn pairs4(w0: u32, w1: u32) -> vec4<u32> {
    return vec4<u32>(w0 & 0xFFFFu, w0 >> 16u, w1 & 0xFFFFu, w1 >> 16u);
}

// Linear 256-wide workgroups on a 2-D grid of `groups_x` columns, four pixels (one vec4 of
// output words) per invocation. Image buffers are whole vectors (gpu/_stack.py) and packed
// buffers whole 256-byte lanes, so the last vector's reads stay in the lane; its words past
// `pixels` stay as they are.
@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k * 4u >= p.pixels) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, n.z);
    let d = lane_start(arrayLength(&dst), wid.z, n.z) + k;
    var out: vec4<u32>;
    if (KIND <= 1u || KIND == 5u) {
        let b = bytes4(src[s + k]);
        if (KIND == 0u) {
            out = b;
        } else if (KIND == 1u) {
            out = b * 0x01010101u;
        } else {
            out = b * 0x010101u | vec4<u32>(0xFF000000u);
        }
    } else {
        let pair = pairs4(src[s + 2u * k], src[s + 2u * k + 1u]);
        let lo = pair & vec4<u32>(255u);
        let hi = pair >> vec4<u32>(8u);
        if (KIND == 2u) {
            out = lo * 0x010101u | (hi << vec4<u32>(24u));
        } else if (KIND == 3u) {
            out = pair;
        } else {
            out = (lo << vec4<u32>(8u)) | hi;
        }
    }
    if (k * 4u + 4u > p.pixels) {  // the partial last vector: its words past the image stay
        out = select(dst[d], out, inside4(k * 4u, p.pixels));
    }
    dst[d] = out;
}

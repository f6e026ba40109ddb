// Pillow's RGB <-> YCbCr conversions (ImagingConvertRGB2YCbCr / ImagingConvertYCbCr2RGB in
// ConvertYCbCr.c): each output is a sum of 6-bit fixed-point table entries, shifted right by 6
// (arithmetic, as C's >> of an int). to_rgb = 0: Y, Cb + 128, Cr + 128 from R, G, B, each
// kept as its low byte; to_rgb = 1: R, G, B from Y, Cb, Cr, clipped to 0..255. Byte 3 (RGB's
// padding or alpha, YCbCr's padding) is copied unchanged, as Pillow copies it.
// Tables (256 i32 each, host-built): 0 Y_R, 1 Y_G, 2 Y_B, 3 Cb_R, 4 Cb_G, 5 Cb_B (= Cr_R),
// 6 Cr_G, 7 Cr_B, 8 R_Cr, 9 G_Cb, 10 G_Cr, 11 B_Cb.
struct Params { width: u32, height: u32, to_rgb: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> tables: array<i32>;

fn entry(table: u32, byte: u32) -> i32 {
    return tables[table * 256u + byte];
}

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let v = src[s + i];
    let b0 = v & 255u;
    let b1 = (v >> 8u) & 255u;
    let b2 = (v >> 16u) & 255u;
    var out: vec3<i32>;
    if (p.to_rgb == 0u) {
        let y = (entry(0u, b0) + entry(1u, b1) + entry(2u, b2)) >> 6u;
        let cb = ((entry(3u, b0) + entry(4u, b1) + entry(5u, b2)) >> 6u) + 128;
        let cr = ((entry(5u, b0) + entry(6u, b1) + entry(7u, b2)) >> 6u) + 128;
        out = vec3<i32>(y, cb, cr) & vec3<i32>(255);
    } else {
        let y = i32(b0);
        let r = y + (entry(8u, b2) >> 6u);
        let g = y + ((entry(9u, b1) + entry(10u, b2)) >> 6u);
        let b = y + (entry(11u, b1) >> 6u);
        out = clamp(vec3<i32>(r, g, b), vec3<i32>(0), vec3<i32>(255));
    }
    let bytes = vec3<u32>(out);
    dst[d + i] = bytes.x | (bytes.y << 8u) | (bytes.z << 16u) | (v & 0xff000000u);
}

// Pillow's convert() between the native 8-bit layouts (and the byte selections to or from
// YCbCr, La and RGBa), one table-free kernel. Each output byte j takes sel[j]:
//   0..3   input byte sel          4  ITU-R 601-2 luma of bytes 0..2 (Pillow's L24 >> 16)
//   5      luma of the CMYK -> RGB colour                 6  the constant konst[j]
//   7..9   CMYK -> RGB channel sel - 7 (cmyk2rgb)         10..13  255 - input byte sel - 10
// keyed (Pillow's rgbT2a, convert_transparent): 1 = an output word equal to `key` (the
// transparent colour with alpha 255) gets alpha 0, colour kept; 2 = an output whose SOURCE
// word equals `key` becomes key & 0x00ffffff (RGB -> LA compares the source, padding included);
// + 4 = a match becomes 0 instead (the premultiplied targets La and RGBa).
struct Params {
    width: u32, height: u32, keyed: u32, key: u32,
    sel: vec4<u32>,
    konst: vec4<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn luma(c: vec3<u32>) -> u32 {
    return (19595u * c.x + 38470u * c.y + 7471u * c.z + 0x8000u) >> 16u;
}

fn muldiv255(a: u32, b: u32) -> u32 {
    let t = a * b + 128u;
    return ((t >> 8u) + t) >> 8u;
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
    let b = vec4<u32>(v & 255u, (v >> 8u) & 255u, (v >> 16u) & 255u, v >> 24u);
    let nk = 255u - b.w;
    let rgb = vec3<u32>(nk - muldiv255(b.x, nk), nk - muldiv255(b.y, nk), nk - muldiv255(b.z, nk));
    let gray = luma(b.xyz);
    let cmyk_gray = luma(rgb);
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let s = p.sel[j];
        var o = p.konst[j];
        if (s < 4u) {
            o = b[s];
        } else if (s == 4u) {
            o = gray;
        } else if (s == 5u) {
            o = cmyk_gray;
        } else if (s >= 7u && s <= 9u) {
            o = rgb[s - 7u];
        } else if (s >= 10u && s <= 13u) {
            o = 255u - b[s - 10u];
        }
        out = out | ((o & 255u) << (8u * j));
    }
    let on_output = (p.keyed & 1u) != 0u && out == p.key;
    let on_source = (p.keyed & 2u) != 0u && v == p.key;
    if (on_output || on_source) {
        out = select(p.key & 0x00ffffffu, 0u, (p.keyed & 4u) != 0u);
    }
    dst[d + i] = out;
}

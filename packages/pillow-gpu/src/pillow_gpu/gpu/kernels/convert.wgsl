// Channel selection: each output byte j takes sel[j] = 0..3 (input byte), 4 (ITU-R 601-2
// luma of bytes 0..2, Pillow's integer form), 5 (luma of CMYK through RGB) or 6 (constant).
// With keyed != 0 an output word equal to `key` (Pillow's rgbT2rgba: the transparent colour
// with alpha 255) gets alpha 0, its colour bytes kept.
struct Params {
    width: u32, height: u32, keyed: u32, key: u32,
    sel: vec4<u32>,
    konst: vec4<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn luma(r: u32, g: u32, b: u32) -> u32 {
    return (19595u * r + 38470u * g + 7471u * b + 0x8000u) >> 16u;
}

fn muldiv255(a: u32, b: u32) -> u32 {
    let t = a * b + 128u;
    return ((t >> 8u) + t) >> 8u;
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    let v = src[i];
    let b = vec4<u32>(v & 255u, (v >> 8u) & 255u, (v >> 16u) & 255u, v >> 24u);
    let nk = 255u - b.w;
    let cmyk = luma(nk - muldiv255(b.x, nk), nk - muldiv255(b.y, nk), nk - muldiv255(b.z, nk));
    let gray = luma(b.x, b.y, b.z);
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let s = p.sel[j];
        var o = p.konst[j];
        if (s < 4u) {
            o = b[s];
        } else if (s == 4u) {
            o = gray;
        } else if (s == 5u) {
            o = cmyk;
        }
        out = out | ((o & 255u) << (8u * j));
    }
    if (p.keyed != 0u && out == p.key) {
        out = out & 0x00ffffffu;
    }
    dst[i] = out;
}

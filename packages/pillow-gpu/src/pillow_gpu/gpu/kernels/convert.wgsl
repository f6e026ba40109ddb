// Pillow's convert() between the native 8-bit layouts (and the byte selections to or from
// YCbCr, La and RGBa), one table-free kernel. Each output byte j takes selector SEL<j>:
//   0..3   input byte sel          4  ITU-R 601-2 luma of bytes 0..2 (Pillow's L24 >> 16)
//   5      luma of the CMYK -> RGB colour                 6  the constant konst[j]
//   7..9   CMYK -> RGB channel sel - 7 (cmyk2rgb)         10..13  255 - input byte sel - 10
// KEYED (Pillow's rgbT2a, convert_transparent): 1 = an output word equal to `key` (the
// transparent colour with alpha 255) gets alpha 0, colour kept; 2 = an output whose SOURCE
// word equals `key` becomes key & 0x00ffffff (RGB -> LA compares the source, padding included);
// + 4 = a match becomes 0 instead (the premultiplied targets La and RGBa).
//
// The selectors and KEYED are pipeline constants, so each conversion compiles to a pipeline
// that computes only its own bytes (lavapipe runs every branch a shader holds).
override SEL0: u32 = 0u;
override SEL1: u32 = 1u;
override SEL2: u32 = 2u;
override SEL3: u32 = 3u;
override KEYED: u32 = 0u;

struct Params { words: u32, key: u32, _pad0: u32, _pad1: u32, konst: vec4<u32>, groups_x: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

//!include luma.wgsli

fn muldiv255(a: u32, b: u32) -> u32 {
    let t = a * b + 128u;
    return ((t >> 8u) + t) >> 8u;
}

// Pillow's cmyk2rgb of one pixel's bytes.
fn cmyk_rgb(b: vec4<u32>) -> vec3<u32> {
    let nk = 255u - b.w;
    return vec3<u32>(nk - muldiv255(b.x, nk), nk - muldiv255(b.y, nk), nk - muldiv255(b.z, nk));
}

// Output byte of selector `s` (a pipeline constant: only its own branch remains).
fn selected(s: u32, konst: u32, b: vec4<u32>) -> u32 {
    if (s < 4u) {
        return b[s];
    }
    if (s == 4u) {
        return luma(b.xyz);
    }
    if (s == 5u) {
        return luma(cmyk_rgb(b));
    }
    if (s >= 7u && s <= 9u) {
        return cmyk_rgb(b)[s - 7u];
    }
    if (s >= 10u && s <= 13u) {
        return 255u - b[s - 10u];
    }
    return konst;
}

// One pixel's output word from its source word.
fn mapped(v: u32) -> u32 {
    let b = vec4<u32>(v & 255u, (v >> 8u) & 255u, (v >> 16u) & 255u, v >> 24u);
    var out = (selected(SEL0, p.konst.x, b) & 255u)
        | ((selected(SEL1, p.konst.y, b) & 255u) << 8u)
        | ((selected(SEL2, p.konst.z, b) & 255u) << 16u)
        | ((selected(SEL3, p.konst.w, b) & 255u) << 24u);
    if (KEYED != 0u) {
        let on_output = (KEYED & 1u) != 0u && out == p.key;
        let on_source = (KEYED & 2u) != 0u && v == p.key;
        if (on_output || on_source) {
            out = select(p.key & 0x00ffffffu, 0u, (KEYED & 4u) != 0u);
        }
    }
    return out;
}

//!include map_words.wgsli

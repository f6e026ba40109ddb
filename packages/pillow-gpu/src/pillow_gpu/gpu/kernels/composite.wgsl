// Compositing per stored byte, as Pillow's Paste.c and AlphaComposite.c compute it.
//
// dst = base, except inside the rectangle at (ox, oy) of size src_w x src_h, where each pixel
// is composed from the base word, a source word (`src`, or the constant `ink` when USE_INK is
// set: a masked colour fill) and, for the masked ops, a mask word read at the same position of
// the rectangle (`mask` has the rectangle's size, as Pillow requires). All four stored bytes
// are composed; an L image's unused bytes are 0 in every operand and stay 0.
//
// OP 0, masked paste / fill with an L, LA, RGBA mask (Paste.c's paste_mask, fill_mask_L,
//   fill_mask_RGBA): byte = DIV255(out * (255 - m) + in * m), m the mask's byte MASK_BYTE;
//   DIV255(a) = ((a + 128) >> 8 + a + 128) >> 8, Pillow's BLEND.
// OP 1, an RGBa mask (paste_mask_RGBa, fill_mask_RGBa): byte = (MULDIV255(out, 255 - m) + in)
//   stored as a byte (Pillow's PREBLEND, which wraps past 255).
// OP 2, a mode 1 mask (paste_mask_1, fill_mask_1): the source word where the mask byte is not 0.
// OP 3, Image.alpha_composite (RGBA, LA; no mask, the rectangle is the whole image): Pillow's
//   integer "over" with 7 extra bits of precision; a transparent source keeps the base word.
//
// ALPHA_BYTE < 4 (OP 0 with USE_INK on LA/La/PA/RGBA/RGBa, fill_mask_L): Pillow's matte fill
// raises a colour byte's mask to 255 where the base's byte ALPHA_BYTE is 0, reading that byte as
// the byte loop has left it so far (the loop runs over bytes 0..3 in order).
struct Params {
    width: i32, height: i32, src_w: i32, src_h: i32,
    ox: i32, oy: i32, ink: u32, groups_x: u32,
}

override OP: u32 = 0u;
override MASK_BYTE: u32 = 0u;
override USE_INK: u32 = 0u;
override ALPHA_BYTE: u32 = 4u;  // 4: no alpha byte
// FLAT = 1: the rectangle is the whole image (every operand has its size), and one invocation
// composes four consecutive words on a linear grid of `groups_x` columns.
override FLAT: u32 = 0u;
// PACKED = 1 (OP 0, FLAT): L images packed four pixels to a word (gpu._packed_l), so each
// byte is a pixel weighed by the same byte of the mask word, as Pillow's paste_mask_L weighs
// each pixel by its own mask byte.
override PACKED: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> base: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read> mask: array<u32>;
@group(0) @binding(4) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

fn byte_of(word: u32, index: u32) -> u32 {
    return (word >> (8u * index)) & 255u;
}

fn div255(a: u32) -> u32 {
    let t = a + 128u;
    return ((t >> 8u) + t) >> 8u;
}

// Pillow's BLEND: out * (255 - m) + in * m, divided by 255 with rounding.
fn blend(m: u32, old: u32, new_byte: u32) -> u32 {
    return div255(old * (255u - m) + new_byte * m);
}

// `mask_word`'s byte MASK_BYTE weighs the whole word (with PACKED, each byte its own).
fn masked(old: u32, source: u32, mask_word: u32) -> u32 {
    let m = byte_of(mask_word, MASK_BYTE);
    if (OP == 2u) {
        return select(old, source, m != 0u);
    }
    var result = old;
    for (var b = 0u; b < 4u; b++) {
        let o = byte_of(result, b);
        let i = byte_of(source, b);
        var v: u32;
        if (OP == 1u) {
            v = (div255(o * (255u - m)) + i) & 255u;  // PREBLEND: MULDIV255 + in, as a byte
        } else {
            var cm = select(m, byte_of(mask_word, b), PACKED == 1u);
            if (ALPHA_BYTE < 4u && b != ALPHA_BYTE && cm != 0u) {
                // 255 - (255 - cm) * (1 - (255 - alpha) / 255): 255 where the alpha byte is 0
                cm = select(cm, 255u, byte_of(result, ALPHA_BYTE) == 0u);
            }
            v = blend(cm, o, i);
        }
        result = (result & ~(255u << (8u * b))) | (v << (8u * b));
    }
    return result;
}

// Pillow's AlphaComposite.c for one pixel: `s` over `d`.
fn over(d: u32, s: u32) -> u32 {
    let sa = s >> 24u;
    if (sa == 0u) {
        return d;
    }
    let da = d >> 24u;
    let outa255 = sa * 255u + da * (255u - sa);
    let coef1 = sa * 255u * 255u * 128u / outa255;  // 7 bits of precision
    let coef2 = 255u * 128u - coef1;
    var result = 0u;
    for (var b = 0u; b < 3u; b++) {
        let t = byte_of(s, b) * coef1 + byte_of(d, b) * coef2 + (128u << 7u);
        result |= ((((t >> 8u) + t) >> 8u) >> 7u) << (8u * b);
    }
    let a = outa255 + 128u;
    return result | ((((a >> 8u) + a) >> 8u) << 24u);
}

// The word composed from the base word `old` and the source and mask words at `inner`, the
// word's index in the rectangle, of stack lane `lane` of `lanes`.
fn composed(old: u32, lane: u32, lanes: u32, inner: u32) -> u32 {
    var source = p.ink;
    if (USE_INK == 0u) {
        source = src[lane_start(arrayLength(&src), lane, lanes) + inner];
    }
    if (OP == 3u) {
        return over(old, source);
    }
    return masked(old, source, mask[lane_start(arrayLength(&mask), lane, lanes) + inner]);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let lb = lane_start(arrayLength(&base), id.z, groups.z);
    let ld = lane_start(arrayLength(&dst), id.z, groups.z);
    if (FLAT == 1u) {
        let first = 4u * ((wid.y * p.groups_x + wid.x) * 256u + lid);
        let words = u32(p.width * p.height);
        for (var k = first; k < min(first + 4u, words); k++) {
            dst[ld + k] = composed(base[lb + k], id.z, groups.z, k);
        }
        return;
    }
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    let i = u32(y * p.width + x);
    let sx = x - p.ox;
    let sy = y - p.oy;
    var v = base[lb + i];
    if (sx >= 0 && sy >= 0 && sx < p.src_w && sy < p.src_h) {
        v = composed(v, id.z, groups.z, u32(sy * p.src_w + sx));
    }
    dst[ld + i] = v;
}

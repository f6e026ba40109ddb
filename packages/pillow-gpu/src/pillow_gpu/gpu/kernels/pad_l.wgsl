// Packed L of any width <-> rows of whole words. Pillow stores an L image's rows back to back,
// so where the width does not divide by four a row starts inside a word. TO_FLAT = 0 copies
// the image into rows of `row_words` = ceil(width / 4) words (pixel x of row y is byte x % 4
// of word y * row_words + x / 4; the bytes past a row's end repeat its last pixel, so a
// filter that clamps its columns at the padded width reads the columns it would clamp at the
// real width), which the packed kernels read like any whole-word rows; TO_FLAT = 1 copies such
// rows back into Pillow's bytes (byte i of the output is pixel i of the image in row-major
// order; bytes past the last pixel are zero). One invocation writes one output word: a funnel
// shift of two input words where its four bytes lie in one row, byte by byte where they cross
// a row's end.
struct Params {
    width: u32, height: u32, row_words: u32, count: u32,
    groups_x: u32, _pad0: u32, _pad1: u32, _pad2: u32,
}

override TO_FLAT: u32 = 0u;
//!include stacked.wgsli

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

var<private> src_base: u32;
var<private> src_last: u32;

// Source byte `b` (a byte offset into this lane's source).
fn byte_at(b: u32) -> u32 {
    return (src[src_base + min(b >> 2u, src_last)] >> (8u * (b & 3u))) & 255u;
}

// The four source bytes b .. b + 3 as one word (b need not be word-aligned).
fn word_at(b: u32) -> u32 {
    let lo = src[src_base + min(b >> 2u, src_last)];
    let shift = 8u * (b & 3u);
    if (shift == 0u) {
        return lo;
    }
    let hi = src[src_base + min((b >> 2u) + 1u, src_last)];
    return (lo >> shift) | (hi << (32u - shift));
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.count) {
        return;
    }
    let lane_words = arrayLength(&src) / select(1u, groups.z, STACKED == 1u);
    src_base = lane_start(arrayLength(&src), wid.z, groups.z);
    src_last = lane_words - 1u;
    let db = lane_start(arrayLength(&dst), wid.z, groups.z);
    if (TO_FLAT == 0u) {
        let y = k / p.row_words;
        let x = 4u * (k % p.row_words);
        let valid = min(4u, p.width - x);  // x < width: row_words = ceil(width / 4)
        let w = word_at(y * p.width + x);
        if (valid == 4u) {
            dst[db + k] = w;
            return;
        }
        let keep = (1u << (8u * valid)) - 1u;
        let edge = ((w >> (8u * (valid - 1u))) & 255u) * 0x01010101u;
        dst[db + k] = (w & keep) | (edge & ~keep);
        return;
    }
    let first = 4u * k;
    let pixels = p.width * p.height;
    let y = first / p.width;
    let x = first % p.width;
    if (x + 3u < p.width && first + 3u < pixels) {  // one row: a funnel shift of its words
        dst[db + k] = word_at(4u * (y * p.row_words) + x);
        return;
    }
    var out = 0u;
    for (var i = 0u; i < 4u; i++) {
        let b = first + i;
        if (b < pixels) {
            out |= byte_at(4u * ((b / p.width) * p.row_words) + b % p.width) << (8u * i);
        }
    }
    dst[db + k] = out;
}

// ImageFilter.Kernel 3x3/5x5 in Pillow's float32 order using host tables
// table[(row * size + col) * 256 + v] = f32(v * k). Bytes with mask bit j are filtered, the
// others are written as 0; the outer size/2 rows and columns are copied unchanged.
struct Params {
    width: i32, height: i32, size: i32, mask: u32,
    start: f32, columns: i32, _pad1: u32, _pad2: u32,  // columns: words per packed row
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
// The tables as vec4 words through a uniform binding (5x5 x 256 entries; a 3x3 table is padded
// to that size): on lavapipe a table read through a uniform binding costs far less than one
// through a storage binding, and each tap reads one entry per filtered byte.
@group(0) @binding(3) var<uniform> table: array<vec4<f32>, 1600>;

//!include stacked.wgsli
// This invocation's lane's first word of each image binding (set by `main`; 0 unstacked).
var<private> src_base: u32;
var<private> dst_base: u32;

fn entry(index: u32) -> f32 {
    return table[index >> 2u][index & 3u];
}

// A row's running sum in Pillow's order: its first tap as it is, then each next one added.
fn add_tap(row: vec4<f32>, t: vec4<f32>, kx: i32) -> vec4<f32> {
    if (kx == 0) {
        return t;
    }
    return row + t;
}

// Pillow's clip of a filtered sum to a byte (truncated toward zero inside 0..255).
fn clip_sum(s: f32) -> u32 {
    if (s >= 255.0) {
        return 255u;
    }
    if (s > 0.0) {
        return u32(s);
    }
    return 0u;
}

// Packed L (pipeline constant PACKED = 1, gpu/_packed_l.py): four pixels to a word and `columns`
// words to a row: Pillow's bytes where the width divides by four, else pad_l's rows of whole
// words (the pixels past `width` are padding). An invocation filters the four pixels of one
// word; lane j of the vectors is pixel 4 x wx + j, with the same taps, table reads and order as
// one pixel per word. Its taps lie in the word and its two neighbours (|dx| <= 2), read once per
// row; border pixels (and padding) keep their byte, so a filtered pixel's taps are all inside
// the real width.
override PACKED: u32 = 0u;

// Byte `k` (0..11) of the twelve bytes l, c, r: pixel 4 x wx - 4 + k of a row.
fn window_byte(l: u32, c: u32, r: u32, k: i32) -> u32 {
    let word = select(select(r, c, k < 8), l, k < 4);
    return (word >> (8u * u32(k & 3))) & 255u;
}

fn filter_packed(wx: i32, y: i32) {
    let columns = p.columns;
    let m = p.size / 2;
    let i = u32(y * columns + wx);
    let center = src[src_base + i];
    if (y < m || y >= p.height - m) {
        dst[dst_base + i] = center;
        return;
    }
    var ss = vec4<f32>(p.start);
    for (var ky = 0; ky < p.size; ky++) {
        let row_base = (y + m - ky) * columns;
        let l = src[src_base + u32(row_base + max(wx - 1, 0))];
        let c = src[src_base + u32(row_base + wx)];
        let r = src[src_base + u32(row_base + min(wx + 1, columns - 1))];
        var row = vec4<f32>(0.0);
        for (var kx = 0; kx < p.size; kx++) {
            let base = u32(ky * p.size + kx) * 256u;
            var t = vec4<f32>(0.0);
            for (var j = 0; j < 4; j++) {
                t[j] = entry(base + window_byte(l, c, r, 4 + j - m + kx));
            }
            row = add_tap(row, t, kx);
        }
        ss = ss + row;
    }
    var out = 0u;
    for (var j = 0; j < 4; j++) {
        let x = wx * 4 + j;
        var o = (center >> (8u * u32(j))) & 255u;  // a border column keeps its byte
        if (x >= m && x < p.width - m) {
            o = clip_sum(ss[j]);
        }
        out = out | (o << (8u * u32(j)));
    }
    dst[dst_base + i] = out;
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    src_base = lane_start(arrayLength(&src), id.z, groups.z);
    dst_base = lane_start(arrayLength(&dst), id.z, groups.z);
    let x = i32(id.x);
    let y = i32(id.y);
    if (PACKED == 1u) {
        if (x < p.columns && y < p.height) {
            filter_packed(x, y);
        }
        return;
    }
    if (x >= p.width || y >= p.height) {
        return;
    }
    let m = p.size / 2;
    let i = u32(y * p.width + x);
    if (x < m || y < m || x >= p.width - m || y >= p.height - m) {
        dst[dst_base + i] = src[src_base + i];
        return;
    }
    // Every filtered byte at once (lane j of the vectors is stored byte j): each tap's word is
    // loaded once, and each lane adds in Pillow's order (a row's taps, then the row to `ss`).
    var ss = vec4<f32>(p.start);
    for (var ky = 0; ky < p.size; ky++) {
        let row_base = u32((y + m - ky) * p.width);
        var row = vec4<f32>(0.0);
        for (var kx = 0; kx < p.size; kx++) {
            let word = src[src_base + row_base + u32(x - m + kx)];
            let base = u32(ky * p.size + kx) * 256u;
            var t = vec4<f32>(0.0);
            for (var j = 0u; j < 4u; j++) {
                if ((p.mask & (1u << j)) != 0u) {
                    t[j] = entry(base + ((word >> (8u * j)) & 255u));
                }
            }
            row = add_tap(row, t, kx);
        }
        ss = ss + row;
    }
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        if ((p.mask & (1u << j)) == 0u) {
            continue;
        }
        out = out | (clip_sum(ss[j]) << (8u * j));
    }
    dst[dst_base + i] = out;
}

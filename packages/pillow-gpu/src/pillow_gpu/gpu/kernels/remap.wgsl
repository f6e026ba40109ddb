// Integer affine gather: dst(x, y) = src(ax*x + bx*y + cx, ay*x + by*y + cy), or `fill` when
// that source position lies outside the source (transpose, crop, expand).
//
// PACKED = 0: one u32 word per pixel, one pixel per invocation on a 2-D grid of the output.
// PACKED = 1: L as Pillow's bytes (gpu/_packed_l.py), one output word (four pixels in row
// order) per invocation on the output's packed word grid of `words_w` columns, each byte
// gathered from the packed source; `fill` is the ink's byte.
struct Params {
    dst_w: i32, dst_h: i32, src_w: i32, src_h: i32,
    ax: i32, bx: i32, cx: i32, ay: i32,
    by: i32, cy: i32, fill: u32, words_w: u32,
}

override PACKED: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

fn inside(sx: i32, sy: i32) -> bool {
    return sx >= 0 && sy >= 0 && sx < p.src_w && sy < p.src_h;
}

// Four output pixels from flat pixel 4 k on, as one packed word (0 past the last pixel).
fn packed_word(k: u32, s: u32) -> u32 {
    let pixels = u32(p.dst_w * p.dst_h);
    var x = i32((4u * k) % u32(p.dst_w));
    var y = i32((4u * k) / u32(p.dst_w));
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        if (4u * k + j < pixels) {
            let sx = p.ax * x + p.bx * y + p.cx;
            let sy = p.ay * x + p.by * y + p.cy;
            var v = p.fill & 255u;
            if (inside(sx, sy)) {
                let i = u32(sy * p.src_w + sx);
                v = (src[s + i / 4u] >> (8u * (i % 4u))) & 255u;
            }
            out = out | (v << (8u * j));
        }
        x = x + 1;
        if (x == p.dst_w) {
            x = 0;
            y = y + 1;
        }
    }
    return out;
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    if (PACKED == 1u) {
        let k = id.y * p.words_w + id.x;
        if (id.x >= p.words_w || 4u * k >= u32(p.dst_w * p.dst_h)) {
            return;
        }
        dst[d + k] = packed_word(k, s);
        return;
    }
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.dst_w || y >= p.dst_h) {
        return;
    }
    let sx = p.ax * x + p.bx * y + p.cx;
    let sy = p.ay * x + p.by * y + p.cy;
    var v = p.fill;
    if (inside(sx, sy)) {
        v = src[s + u32(sy * p.src_w + sx)];
    }
    dst[d + u32(y * p.dst_w + x)] = v;
}

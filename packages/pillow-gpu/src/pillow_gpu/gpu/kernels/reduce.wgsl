// Pillow's Image.reduce (Reduce.c): each output averages its fx x fy block of the box, or
// the part of it inside the box at the right and bottom edges: per byte
// ((sum + n / 2) * multiplier) >> 24 in wrapping u32 arithmetic, where n is the block's pixel
// count and multiplier = (u32)(2^32f / (float)(256 n)), host-computed for the four block
// shapes (full, right edge, bottom edge, corner). Full blocks write the bytes in `mask`
// (others 0); edge blocks write all four bytes, as Pillow's ImagingReduceCorners does.
//
// Large blocks take two dispatches (STAGE, a pipeline constant): stage 1 sums each block row
// (fx pixels of one source row, per byte) into four u32 words, and stage 2 sums a block's fy
// row sums and finishes as stage 0 does. The sums are the same integers, so are the bytes;
// an invocation then loops over fx or fy steps instead of fx * fy (lavapipe ends loops after
// 65,535 steps, and one invocation per huge block leaves a GPU idle).
override STAGE: u32 = 0u;

struct Params {
    dst_w: u32, dst_h: u32, src_w: u32, mask: u32,
    fx: u32, fy: u32, x0: u32, y0: u32,
    box_w: u32, box_h: u32, _pad0: u32, _pad1: u32,
    multiplier: vec4<u32>,  // full, right edge, bottom edge, corner
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

fn row_sum(s: u32, row: u32, xs: u32, xe: u32) -> vec4<u32> {
    var ss = vec4<u32>(0u);
    for (var x = xs; x < xe; x++) {
        let word = src[s + row + x];
        ss = ss + vec4<u32>(word & 255u, (word >> 8u) & 255u, (word >> 16u) & 255u, word >> 24u);
    }
    return ss;
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let xs = id.x * p.fx;
    let xe = min(xs + p.fx, p.box_w);
    if (STAGE == 1u) {  // the sums of block row id.y: four words at (id.y * dst_w + id.x) * 4
        if (id.x >= p.dst_w || id.y >= p.box_h) {
            return;
        }
        let ss = row_sum(s, (p.y0 + id.y) * p.src_w + p.x0, xs, xe);
        let at = d + (id.y * p.dst_w + id.x) * 4u;
        dst[at] = ss.x;
        dst[at + 1u] = ss.y;
        dst[at + 2u] = ss.z;
        dst[at + 3u] = ss.w;
        return;
    }
    if (id.x >= p.dst_w || id.y >= p.dst_h) {
        return;
    }
    let ys = id.y * p.fy;
    let ye = min(ys + p.fy, p.box_h);
    let n = (xe - xs) * (ye - ys);
    var ss = vec4<u32>(n / 2u);
    for (var y = ys; y < ye; y++) {
        if (STAGE == 2u) {  // src holds stage 1's row sums
            let at = s + (y * p.dst_w + id.x) * 4u;
            ss = ss + vec4<u32>(src[at], src[at + 1u], src[at + 2u], src[at + 3u]);
        } else {
            ss = ss + row_sum(s, (p.y0 + y) * p.src_w + p.x0, xs, xe);
        }
    }
    var shape = 0u;
    if (xe - xs < p.fx) {
        shape = shape + 1u;
    }
    if (ye - ys < p.fy) {
        shape = shape + 2u;
    }
    var mask = 15u;
    if (shape == 0u) {
        mask = p.mask;
    }
    let v = (ss * p.multiplier[shape]) >> vec4<u32>(24u);
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        if ((mask & (1u << j)) != 0u) {
            out = out | ((v[j] & 255u) << (8u * j));
        }
    }
    dst[d + id.y * p.dst_w + id.x] = out;
}

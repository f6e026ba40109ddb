// Image.reduce of I images (Pillow's ImagingReduceNxN_32bpc and ImagingReduceCorners_32bpc):
// ss sums a block's int32 values in doubles: a whole block in the groups Pillow adds as C ints
// first (2x2, then 1x2 down an odd last column, 2x1 along an odd last row, one corner value),
// each group wrapping as two's complement on overflow; an edge block (the box's last column /
// row of blocks when the factor does not divide it) value by value. Then
// ROUND_UP(ss * multiplier), multiplier = 1.0 / (pixels of the block) (the host's doubles).
//
// Method: every group sum is an int32 and the lowering bounds a block to fewer than 2^21
// pixels, so every partial double sum is an integer below 2^53 and exact: it is kept as a
// 64-bit integer, converted once and multiplied in software binary64 (binary64.wgsli).
struct Params {
    dst_w: u32, dst_h: u32, src_w: u32, fx: u32,
    fy: u32, x0: u32, y0: u32, width: u32,
    height: u32, above: i32, below: i32, _pad0: u32,
    // 1.0 / pixels as IEEE bits (low, high): whole block, right edge, bottom edge, corner
    whole: vec2<u32>, right: vec2<u32>, bottom: vec2<u32>, corner: vec2<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

//!include binary64.wgsli

var<private> lane_src: u32;  // the source lane's first word

fn value(x: u32, y: u32) -> i32 {
    return bitcast<i32>(src[lane_src + y * p.src_w + x]);
}

// (high, low) of a two's complement 64-bit sum plus the int32 g.
fn add64(sum: vec2<u32>, g: i32) -> vec2<u32> {
    let low = sum.y + bitcast<u32>(g);
    let carry = select(0u, 1u, low < sum.y);
    return vec2<u32>(sum.x + select(0u, 0xFFFFFFFFu, g < 0) + carry, low);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.dst_w || id.y >= p.dst_h) {
        return;
    }
    lane_src = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let full_x = id.x < p.width / p.fx;
    let full_y = id.y < p.height / p.fy;
    let x0 = p.x0 + id.x * p.fx;
    let y0 = p.y0 + id.y * p.fy;
    var sum = vec2<u32>(0u, 0u);
    var m = p.whole;
    if (full_x && full_y) {
        var yy = 0u;
        for (; yy + 1u < p.fy; yy += 2u) {
            var xx = 0u;
            for (; xx + 1u < p.fx; xx += 2u) {
                let g = value(x0 + xx, y0 + yy) + value(x0 + xx + 1u, y0 + yy)
                    + value(x0 + xx, y0 + yy + 1u) + value(x0 + xx + 1u, y0 + yy + 1u);
                sum = add64(sum, g);
            }
            if ((p.fx & 1u) == 1u) {
                sum = add64(sum, value(x0 + xx, y0 + yy) + value(x0 + xx, y0 + yy + 1u));
            }
        }
        if ((p.fy & 1u) == 1u) {
            var xx = 0u;
            for (; xx + 1u < p.fx; xx += 2u) {
                sum = add64(sum, value(x0 + xx, y0 + yy) + value(x0 + xx + 1u, y0 + yy));
            }
            if ((p.fx & 1u) == 1u) {
                sum = add64(sum, value(x0 + xx, y0 + yy));
            }
        }
    } else {
        let x1 = select(p.x0 + p.width, x0 + p.fx, full_x);
        let y1 = select(p.y0 + p.height, y0 + p.fy, full_y);
        for (var y = y0; y < y1; y++) {
            for (var x = x0; x < x1; x++) {
                sum = add64(sum, value(x, y));
            }
        }
        m = select(select(p.corner, p.bottom, full_x), p.right, full_y);
    }
    let negative = (sum.x >> 31u) == 1u;
    var magnitude = sum;
    if (negative) {  // two's complement negation
        let low = ~sum.y + 1u;
        magnitude = vec2<u32>(~sum.x + select(0u, 1u, low == 0u), low);
    }
    let ss = f64_from_u64(select(0u, 1u, negative), magnitude.x, magnitude.y);
    let r = f64_round_up(f64_mul(ss, f64_from_bits(m.x, m.y)), p.above, p.below);
    dst[d + id.y * p.dst_w + id.x] = bitcast<u32>(r);
}

// Pillow's generic transform (ImagingGenericTransform, Geometry.c) for the AFFINE (MAP 0),
// QUAD (MAP 1) and PERSPECTIVE (MAP 2) maps with the NEAREST (FILTER 0), BILINEAR (2) and
// BICUBIC (3) filters, in its double arithmetic: per output pixel (x, y), with xx = x + 0.5
// and yy = y + 0.5,
//   affine: xin = a0 xx + a1 yy + a2, yin = a3 xx + a4 yy + a5;
//   quad:   xin = a0 + a1 xx + a2 yy + a3 xx yy, yin = a4 + a5 xx + a6 yy + a7 xx yy;
//   perspective: the affine xin and yin each divided by a6 xx + a7 yy + 1 (the host checks
//   that every numerator, denominator and quotient is a normal double or zero);
//   each product and sum rounded in C's order (a build that fuses them is refused on the host).
// NEAREST: COORD(v) = v < 0 ? -1 : (int)v on each axis (values past int32 count as outside, as
//   both C conversions put them there); outside the image the fill word, else the source word.
// BILINEAR and BICUBIC: outside when xin < 0, xin >= width, yin < 0 or yin >= height (the fill
//   word); else xin -= 0.5, x0 = FLOOR(xin), dx = xin - x0 (likewise y), samples clipped to
//   the image.
// BILINEAR (FILTER 2), per band: v1 = s00 + (s10 - s00) * dx, v2 the same one row down (v1
//   when that row is outside), v = v1 + (v2 - v1) * dy, stored as (UINT8)v (truncation).
// BICUBIC (FILTER 3), per band: rows y0 - 1 .. y0 + 2 (the first clipped, a later one outside
//   repeats the one above) each through Pillow's cubic of four columns x0 - 1 .. x0 + 2,
//   p1 = b, p2 = -a + c, p3 = 2 (a - b) + c - d, p4 = -a + b - c + d (C ints on a row,
//   doubles down the column), v = p1 + t (p2 + t (p3 + t p4)); stored as 0 at or below 0, 255
//   at or above 255, else (UINT8)v.
// KIND (the filtered bands) 1: one band in byte 0 (L); 2: band 0 from byte 0 into bytes 0..2 and
// band 1 in byte 3 (La); 3: bytes 0..2 (RGB; byte 3 keeps the fill word's); 4: bytes 0..3;
// 5: the word as one C int (I): the row's int arithmetic wraps as Pillow's does (x86-64, a
// host probe checks it), and the result is C's (INT32)v, truncated, with this platform's
// value for a double out of range (p.above, p.below) instead of BICUBIC's 0..255 clamp.
//
// Method: one output pixel per invocation, every double operation in software binary64
// (binary64.wgsli), so each rounding is Pillow's.
struct Params {
    dst_w: u32, dst_h: u32, src_w: u32, src_h: u32,
    fill: u32, above: i32, below: i32, _pad: u32,
    // the map's coefficients as IEEE bits (low, high words): a0..a7 (affine: a0..a5)
    a01: vec4<u32>, a23: vec4<u32>, a45: vec4<u32>, a67: vec4<u32>,
}

override KIND: u32 = 4u;
override FILTER: u32 = 2u;
override MAP: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

//!include binary64.wgsli

var<private> lane_src: u32;  // the source lane's first word

fn negated(v: F64) -> F64 {
    return F64(v.sign ^ 1u, v.exp, v.hi, v.lo);
}

fn from_int(v: i32) -> F64 {  // (double)v, exact
    return f64_from_u64(select(0u, 1u, v < 0), 0u, u32(abs(v)));
}

// a * (n + 0.5) for the integer n >= 0: (a * (2n + 1)) / 2, the halving exact.
fn times_half_odd(a: F64, n: u32) -> F64 {
    var r = f64_mul_int(a, 2u * n + 1u, 0u);
    if (r.hi != 0u) {
        r.exp = r.exp - 1;
    }
    return r;
}

fn doubled(v: F64) -> F64 {  // 2 * v, exact
    var r = v;
    if (r.hi != 0u) {
        r.exp = r.exp + 1;
    }
    return r;
}

fn minus(a: F64, b: F64) -> F64 {
    return f64_add(a, negated(b));
}

// The quad map's ((a + b xx) + c yy) + (d xx) yy with xx = x + 0.5, yy = y + 0.5, each
// operation rounded in C's order.
fn quad(a: F64, b: F64, c: F64, d: F64, x: u32, y: u32) -> F64 {
    let dxxyy = times_half_odd(times_half_odd(d, x), y);
    return f64_add(f64_add(f64_add(a, times_half_odd(b, x)), times_half_odd(c, y)), dxxyy);
}

// NEAREST's COORD(v) within size: the index, or -1 outside.
fn coord(v: F64, size: u32) -> i32 {
    if (v.sign == 1u && v.hi != 0u) {
        return -1;
    }
    let i = f64_to_i32(v, -1, -1);
    return select(-1, i, i >= 0 && i < i32(size));
}

// One source coordinate: Pillow's range check, FLOOR and fraction (cell < -1: outside).
struct Axis {
    cell: i32,
    frac: F64,
}

fn axis(v: F64, size: u32) -> Axis {
    let negative = v.sign == 1u && v.hi != 0u;
    if (negative || f64_at_least_int(v, size)) {
        return Axis(-2, F64(0u, 0, 0u, 0u));
    }
    let shifted = f64_add(v, F64(1u, -1, F64_LEAD, 0u));  // v - 0.5
    var cell = f64_to_i32(shifted, 0, 0);  // truncation; FLOOR of a negative value is -1
    if (shifted.sign == 1u && shifted.hi != 0u) {
        cell = -1;
    }
    return Axis(cell, f64_add(shifted, negated(from_int(cell))));
}

// v >= n for a nonnegative v and an integer n.
fn f64_at_least_int(v: F64, n: u32) -> bool {
    if (n == 0u) {
        return true;
    }
    if (v.hi == 0u) {
        return false;
    }
    return f64_at_least(v, f64_from_u64(0u, 0u, n));
}

fn sample(x: i32, y: i32, byte: u32) -> i32 {
    let cx = u32(clamp(x, 0, i32(p.src_w) - 1));
    let cy = u32(clamp(y, 0, i32(p.src_h) - 1));
    let word = src[lane_src + cy * p.src_w + cx];
    if (KIND == 5u) {
        return bitcast<i32>(word);
    }
    return i32((word >> (8u * byte)) & 0xFFu);
}

// a + (b - a) * d for the integers a, b (C: the int difference times a double, plus a).
fn lerp_int(a: i32, b: i32, d: F64) -> F64 {
    let diff = b - a;
    let product = f64_mul_int(d, u32(abs(diff)), select(0u, 1u, diff < 0));
    return f64_add(from_int(a), product);
}

// p1 + t * (p2 + t * (p3 + t * p4)), Pillow's BICUBIC macro after its p's.
fn cubic(p1: F64, p2: F64, p3: F64, p4: F64, t: F64) -> F64 {
    let inner = f64_add(p3, f64_mul(t, p4));
    return f64_add(p1, f64_mul(t, f64_add(p2, f64_mul(t, inner))));
}

// The cubic of one row: the p's in C ints (exact), the polynomial in doubles.
fn cubic_row(y: i32, ax: Axis, byte: u32) -> F64 {
    let a = sample(ax.cell - 1, y, byte);
    let b = sample(ax.cell, y, byte);
    let c = sample(ax.cell + 1, y, byte);
    let d = sample(ax.cell + 2, y, byte);
    return cubic(from_int(b), from_int(-a + c), from_int(2 * (a - b) + c - d),
        from_int(-a + b - c + d), ax.frac);
}

fn bicubic_value(ax: Axis, ay: Axis, byte: u32) -> F64 {
    let y = ay.cell - 1;
    let v1 = cubic_row(y, ax, byte);  // sample() clips the first row
    var v2 = v1;
    if (y + 1 >= 0 && y + 1 < i32(p.src_h)) {
        v2 = cubic_row(y + 1, ax, byte);
    }
    var v3 = v2;
    if (y + 2 >= 0 && y + 2 < i32(p.src_h)) {
        v3 = cubic_row(y + 2, ax, byte);
    }
    var v4 = v3;
    if (y + 3 >= 0 && y + 3 < i32(p.src_h)) {
        v4 = cubic_row(y + 3, ax, byte);
    }
    let p2 = f64_add(negated(v1), v3);
    let p3 = minus(f64_add(doubled(minus(v1, v2)), v3), v4);
    let p4 = f64_add(minus(f64_add(negated(v1), v2), v3), v4);
    return cubic(v2, p2, p3, p4, ay.frac);
}

fn bilinear_value(ax: Axis, ay: Axis, byte: u32) -> F64 {
    let v1 = lerp_int(sample(ax.cell, ay.cell, byte), sample(ax.cell + 1, ay.cell, byte), ax.frac);
    var v2 = v1;
    if (ay.cell + 1 >= 0 && ay.cell + 1 < i32(p.src_h)) {
        v2 = lerp_int(
            sample(ax.cell, ay.cell + 1, byte), sample(ax.cell + 1, ay.cell + 1, byte), ax.frac
        );
    }
    return f64_add(v1, f64_mul(f64_add(v2, negated(v1)), ay.frac));
}

// The filtered value of one band, as Pillow stores it: I as (INT32)v; an 8-bit band as
// (UINT8)v (BILINEAR's value lies in 0..255), BICUBIC's clamped to 0..255 first.
fn band(ax: Axis, ay: Axis, byte: u32) -> u32 {
    if (FILTER == 2u) {
        let v = bilinear_value(ax, ay, byte);
        if (KIND == 5u) {
            return bitcast<u32>(f64_to_i32(v, p.above, p.below));
        }
        return u32(f64_to_i32(v, 0, 0)) & 0xFFu;
    }
    let v = bicubic_value(ax, ay, byte);
    if (KIND == 5u) {
        return bitcast<u32>(f64_to_i32(v, p.above, p.below));
    }
    if (v.sign == 1u || v.hi == 0u) {
        return 0u;
    }
    if (f64_at_least_int(v, 255u)) {
        return 255u;
    }
    return u32(f64_to_i32(v, 0, 0));
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
    let a0 = f64_from_bits(p.a01.x, p.a01.y);
    let a1 = f64_from_bits(p.a01.z, p.a01.w);
    let a2 = f64_from_bits(p.a23.x, p.a23.y);
    let a3 = f64_from_bits(p.a23.z, p.a23.w);
    let a4 = f64_from_bits(p.a45.x, p.a45.y);
    let a5 = f64_from_bits(p.a45.z, p.a45.w);
    var xin: F64;
    var yin: F64;
    let a6 = f64_from_bits(p.a67.x, p.a67.y);
    let a7 = f64_from_bits(p.a67.z, p.a67.w);
    if (MAP == 1u) {
        xin = quad(a0, a1, a2, a3, id.x, id.y);
        yin = quad(a4, a5, a6, a7, id.x, id.y);
    } else {
        xin = f64_add(f64_add(times_half_odd(a0, id.x), times_half_odd(a1, id.y)), a2);
        yin = f64_add(f64_add(times_half_odd(a3, id.x), times_half_odd(a4, id.y)), a5);
        if (MAP == 2u) {
            let one = F64(0u, 0, F64_LEAD, 0u);
            let w = f64_add(f64_add(times_half_odd(a6, id.x), times_half_odd(a7, id.y)), one);
            xin = f64_div(xin, w);
            yin = f64_div(yin, w);
        }
    }
    var out = p.fill;
    if (FILTER == 0u) {
        let cx = coord(xin, p.src_w);
        let cy = coord(yin, p.src_h);
        if (cx >= 0 && cy >= 0) {
            out = src[lane_src + u32(cy) * p.src_w + u32(cx)];
        }
        dst[d + id.y * p.dst_w + id.x] = out;
        return;
    }
    let ax = axis(xin, p.src_w);
    let ay = axis(yin, p.src_h);
    if (ax.cell >= -1 && ay.cell >= -1) {
        if (KIND == 1u || KIND == 5u) {
            out = band(ax, ay, 0u);
        } else if (KIND == 2u) {
            out = band(ax, ay, 0u) * 0x010101u | (band(ax, ay, 3u) << 24u);
        } else {
            out = band(ax, ay, 0u) | (band(ax, ay, 1u) << 8u) | (band(ax, ay, 2u) << 16u);
            if (KIND == 4u) {
                out = out | (band(ax, ay, 3u) << 24u);
            } else {
                out = out | (p.fill & 0xFF000000u);
            }
        }
    }
    dst[d + id.y * p.dst_w + id.x] = out;
}

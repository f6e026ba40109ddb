// ImageFilter.Kernel 3x3/5x5 of the wide integer modes in Pillow's float32 order: the 16-bit
// modes (I;16, I;16L, I;16B: each pixel's value in its word, whatever the byte order) and, with
// the pipeline constant INT32 = 1, I (int32 values).
//
// Pillow (Filter.c: kernel_i16 and the INT32 branch): ss = f32(offset) + 0.5; for the kernel
// rows top to bottom, applied to the image rows y + m .. y - m, ss += the row's products
// (float)v * k added left to right, each value converted and each product rounded to float32;
// the result is the sum clamped (16-bit: to 0..65535; I: clip32, 0 below 0 and 2^31 - 1 from
// 2^31) and truncated. The outer size / 2 rows and columns are copied. Only the additions are
// float32 operations here, so no multiply-add can be fused:
// - 16-bit: `table` starts with one word per tap, the first entry of its coefficient's
//   products; each distinct coefficient (by its bits) then has 65536 entries f32(v * k);
// - I: an int32 has too many values for a table, so `table` holds each tap's coefficient bits
//   and each product is formed in integer arithmetic, the int's conversion and the 24 x 24-bit
//   product rounded to nearest even as the CPU rounds them. The host admits coefficients of 0
//   or magnitudes 2^-100 .. 2^90, so every product is a normal float32 and no sum is a NaN.
struct Params { width: i32, height: i32, size: i32, start: f32 }

//!include stacked.wgsli
//!include binary64.wgsli

override INT32: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;

// (hi:lo) shifted right by `shift` (1..24), rounded to nearest, ties to even.
fn shift_round(lo: u32, hi: u32, shift: u32) -> u32 {
    let kept = (hi << (32u - shift)) | (lo >> shift);
    let rest = lo & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (kept & 1u) == 1u)) {
        return kept + 1u;
    }
    return kept;
}

// (float)|v| for a nonzero int32 v as (24-bit mantissa with bit 23 set, unbiased exponent).
fn float_of_int(v: i32) -> vec2<i32> {
    let magnitude = select(u32(v), 0u - u32(v), v < 0);  // INT_MIN's magnitude 2^31 fits a u32
    let top = firstLeadingBit(magnitude);
    if (top <= 23u) {
        return vec2<i32>(i32(magnitude << (23u - top)), i32(top));
    }
    let mantissa = shift_round(magnitude, 0u, top - 23u);
    if (mantissa == (1u << 24u)) {  // rounded up to the next power of two
        return vec2<i32>(1 << 23u, i32(top) + 1);
    }
    return vec2<i32>(i32(mantissa), i32(top));
}

// The float32 bits of (float)v * k, k's bits `kb` (0, or normal as the host admits).
fn product_bits(v: i32, kb: u32) -> u32 {
    let sign = ((u32(v) >> 31u) ^ (kb >> 31u)) << 31u;
    if (v == 0 || (kb & 0x7FFFFFFFu) == 0u) {
        return sign;  // a signed zero (its sign never shows in a clipped result)
    }
    let a = float_of_int(v);
    let words = f64_mul_words(u32(a.x), (kb & 0x7FFFFFu) | 0x800000u);  // 47 or 48 bits
    let shift = select(23u, 24u, (words.y >> 15u) != 0u);
    var mantissa = shift_round(words.x, words.y, shift);
    var exponent = a.y + i32((kb >> 23u) & 0xFFu) - 127 + i32(shift) - 23;
    if (mantissa == (1u << 24u)) {
        mantissa = 1u << 23u;
        exponent = exponent + 1;
    }
    return sign | (u32(exponent + 127) << 23u) | (mantissa & 0x7FFFFFu);
}

// Pillow's clip32 (the float32 bound of 2^31 - 1 is 2^31).
fn clip32(s: f32) -> i32 {
    if (s >= 2147483648.0) {
        return 2147483647;
    }
    if (s > 0.0) {
        return i32(s);
    }
    return 0;
}

// Pillow's clip16: NaN and anything <= 0 give 0 (x86's truncation of NaN keeps no low bits),
// 65535 and above give 65535, else truncated toward zero.
fn clip16(s: f32) -> u32 {
    if (s >= 65535.0) {
        return 65535u;
    }
    if (s > 0.0) {
        return u32(s);
    }
    return 0u;
}

// Tap `tap`'s product with the stored word `v`.
fn product(v: u32, tap: u32) -> f32 {
    if (INT32 == 1u) {
        return bitcast<f32>(product_bits(bitcast<i32>(v), table[tap]));
    }
    return bitcast<f32>(table[table[tap] + (v & 0xFFFFu)]);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    let s = lane_start(arrayLength(&src), id.z, n.z);
    let d = lane_start(arrayLength(&dst), id.z, n.z);
    let m = p.size / 2;
    let i = u32(y * p.width + x);
    if (x < m || y < m || x >= p.width - m || y >= p.height - m) {
        dst[d + i] = src[s + i];
        return;
    }
    var ss = p.start;
    for (var ky = 0; ky < p.size; ky++) {
        let row_base = s + u32((y + m - ky) * p.width + x - m);
        let tap = u32(ky * p.size);
        // kernel_i16 starts its row at 0 and the INT32 branch at the first product: the same
        // float (0 + x is x; only a zero's sign differs, which no clipped result shows).
        var row = product(src[row_base], tap);
        for (var kx = 1u; kx < u32(p.size); kx++) {
            row = row + product(src[row_base + kx], tap + kx);
        }
        ss = ss + row;
    }
    if (INT32 == 1u) {
        dst[d + i] = bitcast<u32>(clip32(ss));
    } else {
        dst[d + i] = clip16(ss);
    }
}

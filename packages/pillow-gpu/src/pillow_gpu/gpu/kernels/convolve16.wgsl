// ImageFilter.Kernel 3x3/5x5 of the 16-bit modes (I;16, I;16L, I;16B; each pixel's value in
// its word, whatever the byte order) in Pillow's float32 order, from host tables of products.
//
// Pillow (Filter.c, kernel_i16): ss = f32(offset) + 0.5; for the kernel rows top to bottom,
// applied to the image rows y + m .. y - m, a row sum that starts at 0 and adds f32(v) * k of
// each tap left to right, then ss += row; the result is ss clamped to 0..65535 and truncated.
// The outer size / 2 rows and columns are copied. `table` starts with one word per tap, the
// first entry of its coefficient's products; each distinct coefficient (by its bits) then has
// 65536 entries f32(v * k) for v = 0..65535, so the GPU only adds, in that order, and no
// multiply-add can be fused.
struct Params { width: i32, height: i32, size: i32, start: f32 }

//!include stacked.wgsli

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;

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
        let row_base = u32((y + m - ky) * p.width + x - m);
        var row = 0.0;
        for (var kx = 0; kx < p.size; kx++) {
            let v = src[s + row_base + u32(kx)] & 0xFFFFu;
            row = row + bitcast<f32>(table[table[u32(ky * p.size + kx)] + v]);
        }
        ss = ss + row;
    }
    dst[d + i] = clip16(ss);
}

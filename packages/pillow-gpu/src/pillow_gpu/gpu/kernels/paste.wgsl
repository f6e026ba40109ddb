// Unmasked paste: dst = base, except the rectangle at (ox, oy) of size src_w x src_h, which
// takes src (or the constant `value` when use_const is set, for putpixel).
struct Params {
    width: i32, height: i32, src_w: i32, src_h: i32,
    ox: i32, oy: i32, use_const: u32, value: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> base: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    let i = u32(y * p.width + x);
    let sx = x - p.ox;
    let sy = y - p.oy;
    var v = base[lane_start(arrayLength(&base), id.z, groups.z) + i];
    if (sx >= 0 && sy >= 0 && sx < p.src_w && sy < p.src_h) {
        if (p.use_const != 0u) {
            v = p.value;
        } else {
            v = src[lane_start(arrayLength(&src), id.z, groups.z) + u32(sy * p.src_w + sx)];
        }
    }
    dst[lane_start(arrayLength(&dst), id.z, groups.z) + i] = v;
}

// Integer affine gather: dst(x, y) = src(ax*x + bx*y + cx, ay*x + by*y + cy), or `fill` when
// that source position lies outside the source (transpose, crop, expand).
struct Params {
    dst_w: i32, dst_h: i32, src_w: i32, src_h: i32,
    ax: i32, bx: i32, cx: i32, ay: i32,
    by: i32, cy: i32, fill: u32, _pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.dst_w || y >= p.dst_h) {
        return;
    }
    let sx = p.ax * x + p.bx * y + p.cx;
    let sy = p.ay * x + p.by * y + p.cy;
    var v = p.fill;
    if (sx >= 0 && sy >= 0 && sx < p.src_w && sy < p.src_h) {
        v = src[lane_start(arrayLength(&src), id.z, groups.z) + u32(sy * p.src_w + sx)];
    }
    dst[lane_start(arrayLength(&dst), id.z, groups.z) + u32(y * p.dst_w + x)] = v;
}

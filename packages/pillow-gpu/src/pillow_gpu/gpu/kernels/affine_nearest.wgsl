// Pillow's NEAREST affine transform (Geometry.c), integer-exact. The kind is a pipeline
// constant, so each compiles without the others' branches:
// 0 (ImagingScaleAffine, or the separable generic path of the 16-bit modes): table[0..dst_w)
//   are source columns and table[dst_w..dst_w+dst_h) source rows, built on the host; -1 marks
//   outside the source.
// 1 (affine_fixed): 16.16 fixed point, xx = a2 + x*a0 + y*a1 (wrapping i32, as Pillow's
//   accumulating loop), source column xx >> 16 (arithmetic), likewise the row.
// 2 (ImagingGenericTransform of the 16-bit modes): table[y*dst_w + x] is the source index
//   sy*src_w + sx the host computed in double, or -1 outside.
// Outside the source the pixel is `fill` (0, or the fillcolor ink Image.new wrote).
struct Params {
    dst_w: i32, dst_h: i32, src_w: i32, src_h: i32,
    _kind: i32, a0: i32, a1: i32, a2: i32,
    a3: i32, a4: i32, a5: i32, fill: u32,
}

override KIND: i32 = 0;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<i32>;

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
    let out = u32(y * p.dst_w + x);
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z) + out;
    if (KIND == 2) {
        let index = table[out];
        dst[d] = select(p.fill, src[s + u32(max(index, 0))], index >= 0);
        return;
    }
    var sx = -1;
    var sy = -1;
    if (KIND == 0) {
        sx = table[x];
        sy = table[p.dst_w + y];
    } else {
        sx = (p.a2 + y * p.a1 + x * p.a0) >> 16u;
        sy = (p.a5 + y * p.a4 + x * p.a3) >> 16u;
    }
    var v = p.fill;
    if (sx >= 0 && sy >= 0 && sx < p.src_w && sy < p.src_h) {
        v = src[s + u32(sy * p.src_w + sx)];
    }
    dst[d] = v;
}

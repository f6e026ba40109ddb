// Unsharp-mask combine (Pillow's ImagingUnsharpMask after its Gaussian blur), on all four
// stored bytes: diff = in - blurred; |diff| > threshold ? clip8(in + diff * percent / 100) : in.
// i32 division truncates toward zero like C; the host bounds |percent| so diff * percent fits.
struct Params {
    width: i32, height: i32, percent: i32, threshold: i32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> blurred: array<u32>;
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
    let a = src[lane_start(arrayLength(&src), id.z, groups.z) + i];
    let b = blurred[lane_start(arrayLength(&blurred), id.z, groups.z) + i];
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let s = 8u * j;
        let v = i32((a >> s) & 255u);
        let diff = v - i32((b >> s) & 255u);
        var o = v;
        if (abs(diff) > p.threshold) {
            o = clamp(v + diff * p.percent / 100, 0, 255);
        }
        out = out | (u32(o) << s);
    }
    dst[lane_start(arrayLength(&dst), id.z, groups.z) + i] = out;
}

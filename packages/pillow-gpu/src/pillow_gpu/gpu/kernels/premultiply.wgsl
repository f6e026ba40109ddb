// Pillow's LA/RGBA <-> La/RGBa conversions (Convert.c), every (value, alpha) pair exact:
// premultiply c' = MULDIV255(c, a); unpremultiply c = a in {0, 255} ? c' : min(255 c' / a, 255).
// Alpha (byte 3) is kept. LA (`la` = 1) converts byte 0 and writes it to bytes 0..2.
struct Params { width: u32, height: u32, unpremultiply: u32, la: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn convert(c: u32, a: u32) -> u32 {
    if (p.unpremultiply == 0u) {
        let t = c * a + 128u;
        return ((t >> 8u) + t) >> 8u;
    }
    if (a == 0u || a == 255u) {
        return c;
    }
    return min(255u * c / a, 255u);
}

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    let d = lane_start(arrayLength(&dst), id.z, groups.z) + i;
    let v = src[lane_start(arrayLength(&src), id.z, groups.z) + i];
    let a = v >> 24u;
    let c0 = convert(v & 255u, a);
    var c1 = c0;
    var c2 = c0;
    if (p.la == 0u) {
        c1 = convert((v >> 8u) & 255u, a);
        c2 = convert((v >> 16u) & 255u, a);
    }
    dst[d] = c0 | (c1 << 8u) | (c2 << 16u) | (a << 24u);
}

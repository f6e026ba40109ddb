// Pillow's convert(mode, matrix) of an RGB image (ImagingConvertMatrix). For output band k,
// v = ((m0*r + m1*g) + m2*b) + m3 in float32, then + 0.5, and 0 if v <= 0, 255 if v >= 255,
// else trunc(v). The products are host-built float32 tables (table[(k*3 + c)*256 + byte]), so
// only ordered float32 additions run here and no multiply can be fused into an fma.
// bands = 1: an L image (byte 0); bands = 3: RGB bytes 0..2 and the padding byte 255.
struct Params {
    width: u32, height: u32, bands: u32, _pad: u32,
    offset: vec4<f32>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> products: array<f32>;

fn clipf(v: f32) -> u32 {
    if (v <= 0.0) {
        return 0u;
    }
    if (v >= 255.0) {
        return 255u;
    }
    return u32(v);
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
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let w = src[s + i];
    let rgb = vec3<u32>(w & 255u, (w >> 8u) & 255u, (w >> 16u) & 255u);
    var out = 0u;
    if (p.bands == 3u) {
        out = 0xff000000u;
    }
    for (var k = 0u; k < p.bands; k++) {
        let base = k * 768u;
        var v = products[base + rgb.x] + products[base + 256u + rgb.y];
        v = v + products[base + 512u + rgb.z];
        v = v + p.offset[k];
        v = v + 0.5;
        out = out | (clipf(v) << (8u * k));
    }
    dst[d + i] = out;
}

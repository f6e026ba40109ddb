// Terminal packing of an L image: four u32-per-pixel samples (low byte) into one u32 word.
struct Params { pixels: u32, words: u32, groups_x: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.words) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, groups.z);
    let d = lane_start(arrayLength(&dst), wid.z, groups.z);
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let i = 4u * k + j;
        if (i < p.pixels) {
            out = out | ((src[s + i] & 255u) << (8u * j));
        }
    }
    dst[d + k] = out;
}

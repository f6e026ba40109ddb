// Zero every word of a working buffer's lane (gpu/_aliasing.py): a buffer that a later image
// of the plan takes over holds zeros again before that image's first dispatch, as a fresh
// buffer does. A lane is a whole number of 256-byte granules, so each invocation clears 16
// words (four vectors) and `count` (the lane's vectors / 4) invocations cover it exactly.
struct Params { count: u32, groups_x: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k < p.count) {
        let first = lane_start(arrayLength(&dst), wid.z, groups.z) + 4u * k;
        for (var j = 0u; j < 4u; j++) {
            dst[first + j] = vec4<u32>(0u);
        }
    }
}

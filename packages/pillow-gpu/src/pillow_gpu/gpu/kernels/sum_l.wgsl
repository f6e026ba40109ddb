// Exact integer sum of an L working image (byte 0 of each word) into total[0], on the device.
// Each workgroup adds its 256 samples into a workgroup atomic (at most 256 * 255), then one
// invocation adds that partial into the global atomic. Bounds: an image has at most 4096^2 =
// 2^24 pixels, so the total is at most 255 * 2^24 = 4_278_190_080 < 2^32 (no u32 overflow).
// total[0] must be zero when the dispatch starts: it is a working buffer, zeroed by the plan
// in the same submission (fresh buffers are zero-initialised, reused ones cleared).
struct Params { pixels: u32, groups_x: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> total: array<atomic<u32>>;

var<workgroup> partial: atomic<u32>;

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (lid == 0u) {
        atomicStore(&partial, 0u);
    }
    workgroupBarrier();
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k < p.pixels) {
        atomicAdd(&partial, src[lane_start(arrayLength(&src), wid.z, groups.z) + k] & 255u);
    }
    workgroupBarrier();
    if (lid == 0u) {
        atomicAdd(&total[lane_start(arrayLength(&total), wid.z, groups.z)], atomicLoad(&partial));
    }
}

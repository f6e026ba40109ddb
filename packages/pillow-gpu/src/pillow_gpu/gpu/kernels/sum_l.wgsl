// Exact integer sum of an L working image (byte 0 of each word) on the device, as two words:
// total[0] = sum mod 2^32 and total[1] = sum >> 32. Each workgroup adds its 256 samples into a
// workgroup atomic (at most 256 * 255), then one invocation adds that partial into total[0]
// and, when the add wraps (the value before it exceeds 2^32 - 1 - partial), one carry into
// total[1]. atomicAdd returns the value it added to, so every wrap is counted exactly once.
// Bounds: an image has at most 8192^2 = 2^26 pixels, so the sum is below 2^34.
// Both words must be zero when the dispatch starts: it is a working buffer, zeroed by the plan
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
        let base = lane_start(arrayLength(&total), wid.z, groups.z);
        let part = atomicLoad(&partial);
        let before = atomicAdd(&total[base], part);
        if (before > 0xFFFFFFFFu - part) {
            atomicAdd(&total[base + 1u], 1u);
        }
    }
}

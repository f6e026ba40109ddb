// Per-band 256-bin histograms of a working image: bin v of band b (stored byte b, b < bands)
// counts the pixels whose byte b is v, at hist[b * 256 + v]; with masked != 0 only pixels
// whose mask word has a non-zero byte 0 count (Pillow's ImagingGetHistogram with an L mask).
// Unmasked dispatches bind the source again as the (unread) mask.
//
// Each workgroup counts its 256 pixels into workgroup-local atomic bins, then adds every
// non-zero local bin into the global bin with one atomicAdd. hist must be zero when the
// dispatch starts: it is a working buffer, zeroed by the plan in the same submission.
// Bounds: a graph image has at most 8192^2 = 2^26 pixels, so every bin (local: <= 256,
// global: <= 2^26) stays far below 2^32 (no u32 overflow).
struct Params { pixels: u32, bands: u32, masked: u32, groups_x: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read_write> hist: array<atomic<u32>>;

var<workgroup> local_bins: array<atomic<u32>, 1024>;

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    for (var b = 0u; b < p.bands; b++) {
        atomicStore(&local_bins[b * 256u + lid], 0u);
    }
    workgroupBarrier();
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k < p.pixels) {
        let mb = lane_start(arrayLength(&mask), wid.z, groups.z);
        if (p.masked == 0u || (mask[mb + k] & 255u) != 0u) {
            let v = src[lane_start(arrayLength(&src), wid.z, groups.z) + k];
            for (var b = 0u; b < p.bands; b++) {
                atomicAdd(&local_bins[b * 256u + ((v >> (8u * b)) & 255u)], 1u);
            }
        }
    }
    workgroupBarrier();
    let hb = lane_start(arrayLength(&hist), wid.z, groups.z);
    for (var b = 0u; b < p.bands; b++) {
        let count = atomicLoad(&local_bins[b * 256u + lid]);
        if (count != 0u) {
            atomicAdd(&hist[hb + b * 256u + lid], count);
        }
    }
}

// Rank filter of an I image (MedianFilter, MinFilter, MaxFilter, RankFilter on int32 pixels):
// the `rank`-th smallest signed value of each `size` x `size` window, edges clamped (Pillow
// expands the image by replicating its border, then selects; any exact selection of an int's
// rank gives the same value, so no tie order matters).
//
// Method: the window's samples in a private array, then a partial selection sort from the
// nearer end: `rank` + 1 passes for the smallest, or size^2 - rank for the largest. I images
// are rare next to the 8-bit modes, whose kernels use selection networks and radix select.
struct Params { width: i32, height: i32, size: i32, rank: i32 }

//!include stacked.wgsli

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<i32>;
@group(0) @binding(2) var<storage, read_write> dst: array<i32>;

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    let s = lane_start(arrayLength(&src), id.z, n.z);
    let d = lane_start(arrayLength(&dst), id.z, n.z);
    let m = p.size / 2;
    var samples: array<i32, 49>;
    var count = 0;
    for (var dy = -m; dy <= m; dy++) {
        let row = clamp(y + dy, 0, p.height - 1) * p.width;
        for (var dx = -m; dx <= m; dx++) {
            samples[count] = src[s + u32(row + clamp(x + dx, 0, p.width - 1))];
            count++;
        }
    }
    // From the smallest (k = rank) or from the largest (k = count - 1 - rank, comparisons
    // reversed): after pass i, samples[i] holds the (i+1)-th of that order.
    let largest = 2 * p.rank >= count;
    let k = select(p.rank, count - 1 - p.rank, largest);
    for (var i = 0; i <= k; i++) {
        var best = i;
        for (var j = i + 1; j < count; j++) {
            let before = select(samples[j] < samples[best], samples[j] > samples[best], largest);
            best = select(best, j, before);
        }
        let held = samples[i];
        samples[i] = samples[best];
        samples[best] = held;
    }
    dst[d + u32(y * p.width + x)] = samples[k];
}

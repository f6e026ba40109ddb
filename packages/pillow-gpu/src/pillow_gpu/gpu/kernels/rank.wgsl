// Rank filter, 3x3 median (MedianFilter(3)): per stored byte, the median of the 3x3 window
// with clamped (replicated) edges; bytes outside the band mask (`bytes`: 0xFF per band byte)
// are written 0.
//
// Method: column sorting (Paeth's / Smith's selection network for the median of nine): sort
// each column of three; the median of nine is med3(max of the column minima, med3 of the
// column medians, min of the column maxima): 30 min/max per four lanes instead of 81 pairs.
//
// Lanes: the kernel works on four independent 8-bit lanes at once (vec4<u32> min/max). Word
// packing 0 (RGB, RGBA, CMYK, RGBX) puts one pixel's four stored bytes in the lanes; packing 1
// (LA) bytes 0 and 3 of two adjacent pixels; packing 2 (L) byte 0 of four adjacent pixels, so
// one invocation produces 1 << packing pixels. The other rank kernels (rank_minmax,
// rank_sort9, rank_select) share this layout; each is its own module because lavapipe runs
// every branch of a shader, so one kernel with all methods would pay for all of them.
//!include rank_lanes.wgsli

// Median of three per lane: max(min(a, b), min(max(a, b), c)).
fn med3(a: vec4<u32>, b: vec4<u32>, c: vec4<u32>) -> vec4<u32> {
    return max(min(a, b), min(max(a, b), c));
}

// A column of three, sorted per lane (three compare-exchanges).
fn sort3(a: vec4<u32>, b: vec4<u32>, c: vec4<u32>) -> array<vec4<u32>, 3> {
    let lo = min(a, b);
    let hi = max(a, b);
    let top = min(hi, c);
    return array<vec4<u32>, 3>(min(lo, top), max(lo, top), max(hi, c));
}

fn median9(x0: i32, y: i32) -> vec4<u32> {
    let c0 = sort3(lanes(x0, -1, y - 1), lanes(x0, -1, y), lanes(x0, -1, y + 1));
    let c1 = sort3(lanes(x0, 0, y - 1), lanes(x0, 0, y), lanes(x0, 0, y + 1));
    let c2 = sort3(lanes(x0, 1, y - 1), lanes(x0, 1, y), lanes(x0, 1, y + 1));
    let low = max(max(c0[0], c1[0]), c2[0]);
    let high = min(min(c0[2], c1[2]), c2[2]);
    return med3(low, med3(c0[1], c1[1], c2[1]), high);
}


@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    enter_lane(id.z, n.z);
    let x0 = first_pixel(id.x);
    let y = i32(id.y);
    if (x0 >= p.width || y >= p.height) {
        return;
    }
    store(x0, y, finish(median9(x0, y)));
}

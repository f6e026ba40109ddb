// Rank filter, 3x3 median (MedianFilter(3)): per stored byte, the median of the 3x3 window
// with clamped (replicated) edges; bytes outside the band mask (`bytes`: 0xFF per band byte)
// are written 0.
//
// Method: column sorting (Paeth's / Smith's selection network for the median of nine): sort
// each column of three; the median of nine is med3(max of the column minima, med3 of the
// column medians, min of the column maxima): 30 min/max per four lanes instead of 81 pairs.
// Each invocation filters two rows, whose windows share two rows of samples (see `columns`).
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

// Two rows per invocation: the windows of rows y and y + 1 share rows y and y + 1, so each
// column loads four samples (not six) and sorts its shared pair once; the outer sample of each
// window is then merged into that sorted pair (a sorted column of three in four steps).
struct Column { lo: vec4<u32>, mid: vec4<u32>, hi: vec4<u32> }

fn merged(pair_lo: vec4<u32>, pair_hi: vec4<u32>, outer: vec4<u32>) -> Column {
    return Column(min(pair_lo, outer), max(pair_lo, min(pair_hi, outer)), max(pair_hi, outer));
}

fn median_of(c0: Column, c1: Column, c2: Column) -> vec4<u32> {
    let low = max(max(c0.lo, c1.lo), c2.lo);
    let high = min(min(c0.hi, c1.hi), c2.hi);
    return med3(low, med3(c0.mid, c1.mid, c2.mid), high);
}

// The column at offset dx for rows y (window y - 1 .. y + 1) and y + 1 (y .. y + 2).
fn columns(x0: i32, dx: i32, y: i32) -> array<Column, 2> {
    let b = lanes(x0, dx, y);
    let c = lanes(x0, dx, y + 1);
    let lo = min(b, c);
    let hi = max(b, c);
    return array<Column, 2>(merged(lo, hi, lanes(x0, dx, y - 1)), merged(lo, hi, lanes(x0, dx, y + 2)));
}


@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    enter_lane(id.z, n.z);
    let x0 = first_pixel(id.x);
    let y = 2 * i32(id.y);
    if (x0 >= p.width || y >= p.height) {
        return;
    }
    let left = columns(x0, -1, y);
    let centre = columns(x0, 0, y);
    let right = columns(x0, 1, y);
    store(x0, y, finish(median_of(left[0], centre[0], right[0])));
    if (y + 1 < p.height) {
        store(x0, y + 1, finish(median_of(left[1], centre[1], right[1])));
    }
}

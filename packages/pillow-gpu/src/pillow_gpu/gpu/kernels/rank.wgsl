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
struct Params {
    width: i32, height: i32, size: i32, rank: u32,
    bytes: u32, _packing: u32, op: u32, step_x: i32,
    step_y: i32, _pad0: u32, _pad1: u32, _pad2: u32,
}

// The word packing (0: one pixel, 1: two LA, 2: four L pixels) is a pipeline constant, so
// each packing compiles without the others' loads.
override PACKING: u32 = 0u;
override INVERT: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// The stored word at column x (clamped) of row sy (already clamped).
fn word(x: i32, sy: i32) -> u32 {
    return src[u32(sy * p.width + clamp(x, 0, p.width - 1))];
}

// The four lanes of one window sample: `x` is the invocation's first pixel column plus the
// sample's column offset (each packed pixel's column is clamped on its own), `y` its row.
fn lanes(x: i32, y: i32) -> vec4<u32> {
    let sy = clamp(y, 0, p.height - 1);
    if (PACKING == 0u) {
        let w = word(x, sy);
        return vec4<u32>(w, w >> 8u, w >> 16u, w >> 24u) & vec4<u32>(255u);
    }
    if (PACKING == 1u) {
        let a = word(x, sy);
        let b = word(x + 1, sy);
        return vec4<u32>(a & 255u, a >> 24u, b & 255u, b >> 24u);
    }
    return vec4<u32>(word(x, sy), word(x + 1, sy), word(x + 2, sy), word(x + 3, sy))
        & vec4<u32>(255u);
}

// Writes the lanes of the invocation whose first pixel is (x0, y); bytes outside the mask are 0.
fn store(x0: i32, y: i32, v: vec4<u32>) {
    let row = y * p.width;
    if (PACKING == 0u) {
        dst[u32(row + x0)] = (v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u)) & p.bytes;
        return;
    }
    if (PACKING == 1u) {
        dst[u32(row + x0)] = v.x | (v.y << 24u);
        if (x0 + 1 < p.width) {
            dst[u32(row + x0 + 1)] = v.z | (v.w << 24u);
        }
        return;
    }
    dst[u32(row + x0)] = v.x;
    if (x0 + 1 < p.width) {
        dst[u32(row + x0 + 1)] = v.y;
    }
    if (x0 + 2 < p.width) {
        dst[u32(row + x0 + 2)] = v.z;
    }
    if (x0 + 3 < p.width) {
        dst[u32(row + x0 + 3)] = v.w;
    }
}

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
    let c0 = sort3(lanes(x0 - 1, y - 1), lanes(x0 - 1, y), lanes(x0 - 1, y + 1));
    let c1 = sort3(lanes(x0, y - 1), lanes(x0, y), lanes(x0, y + 1));
    let c2 = sort3(lanes(x0 + 1, y - 1), lanes(x0 + 1, y), lanes(x0 + 1, y + 1));
    let low = max(max(c0[0], c1[0]), c2[0]);
    let high = min(min(c0[2], c1[2]), c2[2]);
    return med3(low, med3(c0[1], c1[1], c2[1]), high);
}

// A folded inversion (INVERT = 1, an ImageOps/ImageChops.invert before the filter): the
// k-th smallest of 255 - v is 255 - the (n-1-k)-th smallest of v, so the host swaps the rank
// and the kernel inverts its result.
fn finish(v: vec4<u32>) -> vec4<u32> {
    if (INVERT == 1u) {
        return vec4<u32>(255u) - v;
    }
    return v;
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x0 = i32(id.x << PACKING);
    let y = i32(id.y);
    if (x0 >= p.width || y >= p.height) {
        return;
    }
    store(x0, y, finish(median9(x0, y)));
}

// Rank filter, 3x3 at any rank but min, median and max (RankFilter(3, rank)): per stored
// byte, the rank-th smallest of the 3x3 window with clamped (replicated) edges; bytes outside
// the band mask (`bytes`) are written 0.
//
// Method: a 25-comparator sorting network of nine (sort the three triples, merge them
// column-wise, fix up; checked on all 512 0/1 inputs, so by the 0-1 principle it sorts any
// input), then the rank-th output.
//
// Lanes and packing as in rank.wgsl.
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

fn sort9(x0: i32, y: i32) -> vec4<u32> {
    var s0 = lanes(x0 - 1, y - 1);
    var s1 = lanes(x0, y - 1);
    var s2 = lanes(x0 + 1, y - 1);
    var s3 = lanes(x0 - 1, y);
    var s4 = lanes(x0, y);
    var s5 = lanes(x0 + 1, y);
    var s6 = lanes(x0 - 1, y + 1);
    var s7 = lanes(x0, y + 1);
    var s8 = lanes(x0 + 1, y + 1);
    var t: vec4<u32>;
    // Sort the three triples, merge them column-wise, then the last fix-ups (25 comparators).
    t = min(s0, s1); s1 = max(s0, s1); s0 = t;
    t = min(s3, s4); s4 = max(s3, s4); s3 = t;
    t = min(s6, s7); s7 = max(s6, s7); s6 = t;
    t = min(s1, s2); s2 = max(s1, s2); s1 = t;
    t = min(s4, s5); s5 = max(s4, s5); s4 = t;
    t = min(s7, s8); s8 = max(s7, s8); s7 = t;
    t = min(s0, s1); s1 = max(s0, s1); s0 = t;
    t = min(s3, s4); s4 = max(s3, s4); s3 = t;
    t = min(s6, s7); s7 = max(s6, s7); s6 = t;
    t = min(s0, s3); s3 = max(s0, s3); s0 = t;
    t = min(s3, s6); s6 = max(s3, s6); s3 = t;
    t = min(s0, s3); s3 = max(s0, s3); s0 = t;
    t = min(s1, s4); s4 = max(s1, s4); s1 = t;
    t = min(s4, s7); s7 = max(s4, s7); s4 = t;
    t = min(s1, s4); s4 = max(s1, s4); s1 = t;
    t = min(s2, s5); s5 = max(s2, s5); s2 = t;
    t = min(s5, s8); s8 = max(s5, s8); s5 = t;
    t = min(s2, s5); s5 = max(s2, s5); s2 = t;
    t = min(s1, s3); s3 = max(s1, s3); s1 = t;
    t = min(s5, s7); s7 = max(s5, s7); s5 = t;
    t = min(s2, s6); s6 = max(s2, s6); s2 = t;
    t = min(s4, s6); s6 = max(s4, s6); s4 = t;
    t = min(s2, s4); s4 = max(s2, s4); s2 = t;
    t = min(s2, s3); s3 = max(s2, s3); s2 = t;
    t = min(s5, s6); s6 = max(s5, s6); s5 = t;
    switch p.rank {
        case 0u: { return s0; }
        case 1u: { return s1; }
        case 2u: { return s2; }
        case 3u: { return s3; }
        case 4u: { return s4; }
        case 5u: { return s5; }
        case 6u: { return s6; }
        case 7u: { return s7; }
        default: { return s8; }
    }
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
    store(x0, y, finish(sort9(x0, y)));
}

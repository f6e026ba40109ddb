// Rank filter, min and max (MinFilter, MaxFilter, and RankFilter at rank 0 or size^2 - 1):
// one line pass, the min (op 0) or max (op 1) of `size` samples along (step_x, step_y) with
// clamped (replicated) edges; bytes outside the band mask (`bytes`) are written 0.
//
// Method: separable min/max, a row pass then a column pass (rank_minmax.py). The clamped 2-D
// window is the product of its clamped rows and clamped columns, so the min over the rows of
// the row minima is the window's min: 2 x size samples per pixel, not size^2.
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

// Min (op 0) or max (op 1) of `size` samples centred on (x0, y) along (step_x, step_y).
fn line(x0: i32, y: i32) -> vec4<u32> {
    let m = p.size / 2;
    var v = lanes(x0 - m * p.step_x, y - m * p.step_y);
    for (var i = 1 - m; i <= m; i++) {
        let s = lanes(x0 + i * p.step_x, y + i * p.step_y);
        v = select(min(v, s), max(v, s), p.op == 1u);
    }
    return v;
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
    store(x0, y, finish(line(x0, y)));
}

// Rank filter, 3x3 median (MedianFilter(3)): per stored byte, the median of the 3x3 window
// with clamped (replicated) edges; bytes outside the band mask (`bytes`: 0xFF per band byte)
// are written 0.
//
// Method: column sorting (Paeth's / Smith's selection network for the median of nine): sort
// each column of three; the median of nine is med3(max of the column minima, med3 of the
// column medians, min of the column maxima): 30 min/max per four lanes instead of 81 pairs.
// Loads dominate this kernel on lavapipe, so an invocation filters several pixels whose
// windows overlap and loads each sample once: the word modes (PACKING 0) two pixels of four
// rows (`quad_main`), L (PACKING 3 packed, PACKING 2 one word per pixel) eight pixels of four
// rows (`packed_main`); each row sorts every pixel column its pixels read once, adjacent rows
// share their two common sample rows as a sorted pair, and the six sample rows are loaded once.
// Against one pixel (one word) of two rows, a sample word is loaded half as often and an image
// takes about 25-30 % less time (lavapipe, 2048x2048 L and 1024x1024 RGBA). LA runs as a word
// mode (rank.py), its bytes 1 and 2 masked: PACKING 1 never reaches this kernel.
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

// A sorted column of three from a sorted pair of samples and a third one, in four steps.
struct Column { lo: vec4<u32>, mid: vec4<u32>, hi: vec4<u32> }

fn merged(pair_lo: vec4<u32>, pair_hi: vec4<u32>, outer: vec4<u32>) -> Column {
    return Column(min(pair_lo, outer), max(pair_lo, min(pair_hi, outer)), max(pair_hi, outer));
}

fn median_of(c0: Column, c1: Column, c2: Column) -> vec4<u32> {
    let low = max(max(c0.lo, c1.lo), c2.lo);
    let high = min(min(c0.hi, c1.hi), c2.hi);
    return med3(low, med3(c0.mid, c1.mid, c2.mid), high);
}

// L: one sample row of an invocation's eight pixels 4 wx .. 4 wx + 7, clamped at the row's
// ends: the pixels of each group of four (`first`, `second`; packed, one word's four bytes)
// and the pixels just left (x) and right (y) of the eight (`sides`). Past the row's end every
// pixel is the edge pixel repeated.
struct Samples { first: vec4<u32>, second: vec4<u32>, sides: vec2<u32> }

fn packed_samples(wx: i32, y: i32) -> Samples {
    if (PACKING == 2u) {  // one word per pixel, clamped one by one
        let sy = clamp(y, 0, p.height - 1);
        let x = 4 * wx;
        let bytes = vec4<u32>(255u);
        return Samples(
            vec4<u32>(word(x, sy), word(x + 1, sy), word(x + 2, sy), word(x + 3, sy)) & bytes,
            vec4<u32>(word(x + 4, sy), word(x + 5, sy), word(x + 6, sy), word(x + 7, sy)) & bytes,
            vec2<u32>(word(x - 1, sy), word(x + 8, sy)) & bytes.xy,
        );
    }
    let columns = p.width / 4;
    let row = src_base + u32(clamp(y, 0, p.height - 1) * columns);
    let a = src[row + u32(wx)];
    let b = select((a >> 24u) * 0x01010101u, src[row + u32(min(wx + 1, columns - 1))], wx + 1 < columns);
    let l = select(src[row + u32(max(wx - 1, 0))] >> 24u, a & 255u, wx == 0);
    let r = select(src[row + u32(min(wx + 2, columns - 1))] & 255u, b >> 24u, wx + 2 >= columns);
    return Samples(bytes_of(a), bytes_of(b), vec2<u32>(l, r));
}

// `merged` for the two side columns.
struct Sides { lo: vec2<u32>, mid: vec2<u32>, hi: vec2<u32> }

fn merged_sides(pair_lo: vec2<u32>, pair_hi: vec2<u32>, outer: vec2<u32>) -> Sides {
    return Sides(min(pair_lo, outer), max(pair_lo, min(pair_hi, outer)), max(pair_hi, outer));
}

// The sorted columns of one output row: the ten pixel columns its eight pixels read.
struct Sorted { first: Column, second: Column, sides: Sides }

// The columns of an output row from its rows' shared sorted pair (`lo`, `hi`) and outer row.
fn sorted(lo: Samples, hi: Samples, outer: Samples) -> Sorted {
    return Sorted(
        merged(lo.first, hi.first, outer.first),
        merged(lo.second, hi.second, outer.second),
        merged_sides(lo.sides, hi.sides, outer.sides),
    );
}

// The medians of four pixels from their own sorted columns and the columns just left and
// right of them: each pixel's left and right columns are its word's shifted by one lane.
fn median4(left: vec3<u32>, word: Column, right: vec3<u32>) -> vec4<u32> {
    let l = Column(vec4<u32>(left.x, word.lo.xyz), vec4<u32>(left.y, word.mid.xyz), vec4<u32>(left.z, word.hi.xyz));
    let r = Column(vec4<u32>(word.lo.yzw, right.x), vec4<u32>(word.mid.yzw, right.y), vec4<u32>(word.hi.yzw, right.z));
    return median_of(l, word, r);
}

fn column_at(c: Column, lane: u32) -> vec3<u32> {
    return vec3<u32>(c.lo[lane], c.mid[lane], c.hi[lane]);
}

// Writes both words of an output row (the second only where it exists).
fn store_pair(wx: i32, y: i32, s: Sorted) {
    let left = vec3<u32>(s.sides.lo.x, s.sides.mid.x, s.sides.hi.x);
    let right = vec3<u32>(s.sides.lo.y, s.sides.mid.y, s.sides.hi.y);
    store(wx * 4, y, finish(median4(left, s.first, column_at(s.second, 0u))));
    if (wx * 4 + 4 < p.width) {
        store(wx * 4 + 4, y, finish(median4(column_at(s.first, 3u), s.second, right)));
    }
}

// Two sample rows sorted lane by lane: the pair every window of two adjacent rows shares.
struct Pair { lo: Samples, hi: Samples }

fn sorted_pair(a: Samples, b: Samples) -> Pair {
    return Pair(
        Samples(min(a.first, b.first), min(a.second, b.second), min(a.sides, b.sides)),
        Samples(max(a.first, b.first), max(a.second, b.second), max(a.sides, b.sides)),
    );
}

// L: eight pixels (packed, two words) of rows y .. y + 3 per invocation. Rows y and y + 1 share
// sample rows y and y + 1, rows y + 2 and y + 3 share y + 2 and y + 3; the six sample rows
// y - 1 .. y + 4 are each loaded once.
fn packed_main(wx: i32, y: i32) {
    let b = packed_samples(wx, y);
    let c = packed_samples(wx, y + 1);
    let d = packed_samples(wx, y + 2);
    let upper = sorted_pair(b, c);
    store_pair(wx, y, sorted(upper.lo, upper.hi, packed_samples(wx, y - 1)));
    if (y + 1 < p.height) {
        store_pair(wx, y + 1, sorted(upper.lo, upper.hi, d));
    }
    if (y + 2 < p.height) {
        let lower = sorted_pair(d, packed_samples(wx, y + 3));
        store_pair(wx, y + 2, sorted(lower.lo, lower.hi, c));
        if (y + 3 < p.height) {
            store_pair(wx, y + 3, sorted(lower.lo, lower.hi, packed_samples(wx, y + 4)));
        }
    }
}

// Word modes (PACKING 0): one sample row of an invocation's two pixels x and x + 1: the
// stored bytes of pixels x - 1 .. x + 2 (clamped at the row's ends), one column each.
struct Quad { a: vec4<u32>, b: vec4<u32>, c: vec4<u32>, d: vec4<u32> }

fn quad_samples(x: i32, y: i32) -> Quad {
    let sy = clamp(y, 0, p.height - 1);
    return Quad(
        bytes_of(word(x - 1, sy)), bytes_of(word(x, sy)), bytes_of(word(x + 1, sy)), bytes_of(word(x + 2, sy)),
    );
}

struct QuadPair { lo: Quad, hi: Quad }

fn sorted_quads(u: Quad, v: Quad) -> QuadPair {
    return QuadPair(
        Quad(min(u.a, v.a), min(u.b, v.b), min(u.c, v.c), min(u.d, v.d)),
        Quad(max(u.a, v.a), max(u.b, v.b), max(u.c, v.c), max(u.d, v.d)),
    );
}

// Both pixels of an output row from its rows' sorted pair and outer row (the second pixel
// only where it exists): each of the four columns is sorted once for the two medians.
fn store_quad(x: i32, y: i32, pair: QuadPair, outer: Quad) {
    let c0 = merged(pair.lo.a, pair.hi.a, outer.a);
    let c1 = merged(pair.lo.b, pair.hi.b, outer.b);
    let c2 = merged(pair.lo.c, pair.hi.c, outer.c);
    store(x, y, finish(median_of(c0, c1, c2)));
    if (x + 1 < p.width) {
        store(x + 1, y, finish(median_of(c1, c2, merged(pair.lo.d, pair.hi.d, outer.d))));
    }
}

// Word modes: pixels x and x + 1 of rows y .. y + 3 per invocation, the six sample rows
// y - 1 .. y + 4 each loaded once (as `packed_main` does for packed L).
fn quad_main(x: i32, y: i32) {
    let b = quad_samples(x, y);
    let c = quad_samples(x, y + 1);
    let d = quad_samples(x, y + 2);
    let upper = sorted_quads(b, c);
    store_quad(x, y, upper, quad_samples(x, y - 1));
    if (y + 1 < p.height) {
        store_quad(x, y + 1, upper, d);
    }
    if (y + 2 < p.height) {
        let lower = sorted_quads(d, quad_samples(x, y + 3));
        store_quad(x, y + 2, lower, c);
        if (y + 3 < p.height) {
            store_quad(x, y + 3, lower, quad_samples(x, y + 4));
        }
    }
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    enter_lane(id.z, n.z);
    if (PACKING == 3u || PACKING == 2u) {
        let wx = 2 * i32(id.x);
        let row = 4 * i32(id.y);
        if (wx * 4 < p.width && row < p.height) {
            packed_main(wx, row);
        }
        return;
    }
    let x = 2 * i32(id.x);  // PACKING 0
    let row = 4 * i32(id.y);
    if (x < p.width && row < p.height) {
        quad_main(x, row);
    }
}

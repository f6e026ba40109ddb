// Floyd-Steinberg error diffusion exactly as Pillow's Convert.c runs it (tobilevel, and
// topalette with dither), rows in a wavefront.
//
// Pillow walks each row left to right with a line of errors, one entry per column plus one:
// pixel x of row y reads the entry x + 1 that row y - 1 left and the error carried from pixel
// x - 1 (C's truncating division by 16, CLIP8), picks its value, then writes entry x
// (3 err + the 5/16 part of pixel x - 1 ... as its "don't ask" code adds them) and carries
// 7 err to the right; after the row's last pixel it writes the entry of column `width`
// (tobilevel: l0; topalette: b0, b1, b2 for all three channels, as its code does).
// Row y's pixel x therefore needs row y - 1 to be done with column x + 1: row y runs two
// columns behind row y - 1 (a wavefront). One invocation runs one row at a time, ROWS rows of
// a workgroup at once; row t + k ROWS of this dispatch starts at step 2 t + k PERIOD, with
// PERIOD = max(width + 1, 2 ROWS), so consecutive rows always start at least two steps apart
// and, in one step, no row writes an entry another row reads (a row reads entry x + 1 at the
// step where the row above wrote it one step earlier). Every step ends in a storage barrier.
// A longer image takes several dispatches (row0, rows): the line is a working buffer, zero
// when the plan starts, and carries the errors from one dispatch to the next.
//
// KIND 0: L -> 1 (byte 0 of the word); KIND 1: RGB -> 1 (Pillow's L(rgb) / 1000 of bytes
// 0..2); KIND 2: RGB -> P with the WEB palette (bytes 0..2, the palette cache's 64^3 cells
// in `cells`, the palette's colours as 0x00BBGGRR words in `colours`, three error entries per
// column). The output byte (the index, or 1's 0/255) is repeated in the four bytes of the word.
struct Params {
    width: u32, height: u32, row0: u32, rows: u32,
    period: u32, steps: u32, _groups_x: u32, _pad: u32,
}

override KIND: u32 = 0u;
override ROWS: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> line: array<i32>;
@group(0) @binding(4) var<storage, read> cells: array<u32>;
@group(0) @binding(5) var<storage, read> colours: array<u32>;

//!include stacked.wgsli

fn channels(v: u32) -> vec3<i32> {
    return vec3<i32>(vec3<u32>(v & 255u, (v >> 8u) & 255u, (v >> 16u) & 255u));
}

@compute @workgroup_size(ROWS)
fn main(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let s = lane_start(arrayLength(&src), wid.z, groups.z);
    let d = lane_start(arrayLength(&dst), wid.z, groups.z);
    let e = lane_start(arrayLength(&line), wid.z, groups.z);
    let width = i32(p.width);
    // x: this invocation's column (negative before its first row starts); y: its row.
    var x = -2 * i32(t);
    var y = t;
    var carry = vec3<i32>(0);  // 7 err of the pixel to the left (Pillow's l / r, g, b)
    var e0 = vec3<i32>(0);  // Pillow's l0 / r0, g0, b0: 5 err + e1 of the pixel to the left
    var e1 = vec3<i32>(0);  // Pillow's l1 / r1, g1, b1: err of the pixel to the left
    for (var step = 0u; step < p.steps; step++) {
        if (x >= 0 && x <= width && y < p.rows) {
            if (x == 0) {
                carry = vec3<i32>(0);
                e0 = vec3<i32>(0);
                e1 = vec3<i32>(0);
            }
            let row = p.row0 + y;
            if (x < width) {
                let v = src[s + row * p.width + u32(x)];
                var out = 0u;
                if (KIND == 2u) {
                    let at = e + 3u * u32(x);
                    let below = vec3<i32>(line[at + 3u], line[at + 4u], line[at + 5u]);
                    let c = clamp(channels(v) + (carry + below) / 16, vec3<i32>(0), vec3<i32>(255));
                    let u = vec3<u32>(c);
                    let cell = ((u.x >> 2u) << 12u) | ((u.y >> 2u) << 6u) | (u.z >> 2u);
                    out = (cells[cell >> 2u] >> (8u * (cell & 3u))) & 255u;
                    let err = c - channels(colours[out]);
                    line[at] = 3 * err.x + e0.x;
                    line[at + 1u] = 3 * err.y + e0.y;
                    line[at + 2u] = 3 * err.z + e0.z;
                    e0 = 5 * err + e1;
                    e1 = err;
                    carry = 7 * err;
                } else {
                    var value = i32(v & 255u);
                    if (KIND == 1u) {
                        let rgb = vec3<u32>(channels(v));
                        value = i32((rgb.x * 299u + rgb.y * 587u + rgb.z * 114u) / 1000u);
                    }
                    let at = e + u32(x);
                    let l = clamp(value + (carry.x + line[at + 1u]) / 16, 0, 255);
                    out = select(0u, 255u, l > 128);
                    let err = l - i32(out);
                    line[at] = 3 * err + e0.x;
                    e0.x = 5 * err + e1.x;
                    e1.x = err;
                    carry.x = 7 * err;
                }
                dst[d + row * p.width + u32(x)] = out * 0x01010101u;
            } else if (KIND == 2u) {
                let at = e + 3u * p.width;  // Pillow writes b0, b1, b2 here
                line[at] = e0.z;
                line[at + 1u] = e1.z;
                line[at + 2u] = e1.z;
            } else {
                line[e + p.width] = e0.x;
            }
        }
        x += 1;
        if (x == i32(p.period)) {
            x = 0;
            y += ROWS;
        }
        storageBarrier();
    }
}

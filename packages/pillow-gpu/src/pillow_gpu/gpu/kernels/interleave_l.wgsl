// Packed L <-> row groups: the 4x4 byte transpose between Pillow's packed rows (word x4 of
// row y holds pixels 4 * x4 .. 4 * x4 + 3 of that row) and the layout the horizontal box-blur
// passes read: group q of rows 4q .. 4q + 3 as a row of `width` words, word q * width + x
// holding pixel x of those rows (lane j = row 4q + j). That is an image `width` x groups whose
// four stored bytes are four rows, so the running-sum kernel blurs four rows at once.
//
// Invocation (x4, q) owns a 4x4 tile of bytes: packed words x4 of rows 4q .. 4q + 3 and
// group words 4 * x4 .. 4 * x4 + 3 of row group q. Neighbouring invocations take neighbouring
// x4, so both sides are read and written in consecutive words (no scatter or gather).
// TO_ROWS = 0 reads the packed side and writes the groups (rows past the last are zero lanes,
// which the blur carries along and nothing reads back); TO_ROWS = 1 is the inverse and writes
// only the rows that exist. The direction is a pipeline constant, so each compiles without the
// other's code.
struct Params { row_words: u32, height: u32, tiles: u32, groups_x: u32 }

override TO_ROWS: u32 = 0u;
//!include stacked.wgsli

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// Word i of the transposed tile: byte i of every input word, input word j in byte j.
fn transposed(w: vec4<u32>, i: u32) -> u32 {
    let b = ((w >> vec4<u32>(8u * i)) & vec4<u32>(255u)) << vec4<u32>(0u, 8u, 16u, 24u);
    return b.x | b.y | b.z | b.w;
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.tiles) {
        return;
    }
    let sb = lane_start(arrayLength(&src), wid.z, groups.z);  // lane's image
    let db = lane_start(arrayLength(&dst), wid.z, groups.z);
    let x4 = k % p.row_words;
    let q = k / p.row_words;
    let rows = x4 + 4u * q * p.row_words;  // packed word x4 of row 4q
    let group = 4u * (q * p.row_words + x4);  // group word 4 * x4 of group q
    let n = p.row_words;
    if (TO_ROWS == 0u) {
        let valid = inside4(4u * q, p.height);
        // Rows past the last (the last group only) read as zero; their loads are clamped.
        let last = p.height - 1u;
        let w = select(vec4<u32>(0u), vec4<u32>(
            src[sb + rows], src[sb + x4 + min(4u * q + 1u, last) * n],
            src[sb + x4 + min(4u * q + 2u, last) * n], src[sb + x4 + min(4u * q + 3u, last) * n]
        ), valid);
        dst[db + group] = transposed(w, 0u);
        dst[db + group + 1u] = transposed(w, 1u);
        dst[db + group + 2u] = transposed(w, 2u);
        dst[db + group + 3u] = transposed(w, 3u);
    } else {
        let g = sb + group;
        let w = vec4<u32>(src[g], src[g + 1u], src[g + 2u], src[g + 3u]);
        for (var j = 0u; j < 4u; j++) {
            if (4u * q + j < p.height) {
                dst[db + rows + j * n] = transposed(w, j);
            }
        }
    }
}

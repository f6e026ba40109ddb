// Inversion of stored bytes without a table: dst = ~src & mask, four bytes at once (the lookup
// family's table when every row is 255 - v or all zero, e.g. ImageChops.invert or
// ImageOps.invert of RGB with its padding byte written 0).
struct Params { words: u32, mask: u32, _pad0: u32, groups_x: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// Stacked (gpu/_stack.py, pipeline constant STACKED = 1): workgroup z is the lane of a stack
// of same-shaped images; each image binding holds one image every arrayLength / lanes words.
// Unstacked dispatches compile with the lane offsets folded away.
override STACKED: u32 = 0u;

// Each invocation inverts WORDS consecutive words (linear 256-wide workgroups on a 2-D grid of
// `groups_x` columns): on lavapipe, where every invocation has a fixed cost, fewer and longer
// invocations run the same bytes faster.
const WORDS: u32 = 4u;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let first = ((wid.y * p.groups_x + wid.x) * 256u + lid) * WORDS;
    if (first >= p.words) {
        return;
    }
    let s = select(0u, wid.z * (arrayLength(&src) / n.z), STACKED == 1u) + first;  // this lane
    let d = select(0u, wid.z * (arrayLength(&dst) / n.z), STACKED == 1u) + first;
    let count = min(WORDS, p.words - first);
    for (var k = 0u; k < count; k++) {
        dst[d + k] = ~src[s + k] & p.mask;
    }
}

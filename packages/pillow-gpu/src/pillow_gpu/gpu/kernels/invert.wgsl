// Inversion of stored bytes without a table: dst = ~src & mask, sixteen bytes at once (the
// lookup family's table when every row is 255 - v or all zero, e.g. ImageChops.invert or
// ImageOps.invert of RGB with its padding byte written 0).
struct Params { words: u32, mask: u32, _pad0: u32, groups_x: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

//!include stacked.wgsli

// Each invocation inverts VECTORS consecutive vec4 words (linear 256-wide workgroups on a 2-D
// grid of `groups_x` columns): on lavapipe, where each access and each invocation's lane offset
// (a division) has a fixed cost, sixteen words per invocation in vec4 accesses measured 9.0 ns
// per word against 12.9 ns for four u32 words. Image buffers are whole vectors (gpu/_stack.py
// sizes them to 256 bytes); an image's last vector keeps its words past `words`.
const VECTORS: u32 = 4u;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let vectors = (p.words + 3u) / 4u;
    let first = ((wid.y * p.groups_x + wid.x) * 256u + lid) * VECTORS;
    if (first >= vectors) {
        return;
    }
    let s = lane_start(arrayLength(&src), wid.z, n.z) + first;  // this lane
    let d = lane_start(arrayLength(&dst), wid.z, n.z) + first;
    let mask = vec4<u32>(p.mask);
    let count = min(VECTORS, vectors - first);
    for (var k = 0u; k < count; k++) {
        var inverted = ~src[s + k] & mask;
        let word = (first + k) * 4u;
        if (word + 4u > p.words) {  // the partial last vector: its words past the image stay
            inverted = select(dst[d + k], inverted, inside4(word, p.words));
        }
        dst[d + k] = inverted;
    }
}

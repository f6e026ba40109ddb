// Terminal packing of an L image: four u32-per-pixel samples (low byte) into one u32 word.
struct Params { pixels: u32, words: u32, groups_x: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// Stacked (gpu/_stack.py, pipeline constant STACKED = 1): workgroup z is the lane of a stack
// of same-shaped images; each binding holds one image every arrayLength / lanes words.
override STACKED: u32 = 0u;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    if (k >= p.words) {
        return;
    }
    let s = select(0u, wid.z * (arrayLength(&src) / groups.z), STACKED == 1u);
    let d = select(0u, wid.z * (arrayLength(&dst) / groups.z), STACKED == 1u);
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let i = 4u * k + j;
        if (i < p.pixels) {
            out = out | ((src[s + i] & 255u) << (8u * j));
        }
    }
    dst[d + k] = out;
}

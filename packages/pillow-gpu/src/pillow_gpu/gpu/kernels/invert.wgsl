// Inversion of stored bytes without a table: dst = ~src & mask, four bytes at once (the lookup
// family's table when every row is 255 - v or all zero, e.g. ImageChops.invert or
// ImageOps.invert of RGB with its padding byte written 0).
struct Params { width: u32, height: u32, mask: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// Stacked (gpu/_stack.py, pipeline constant STACKED = 1): workgroup z is the lane of a stack
// of same-shaped images; each image binding holds one image every arrayLength / lanes words.
// Unstacked dispatches compile with the lane offsets folded away.
override STACKED: u32 = 0u;

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    let s = select(0u, id.z * (arrayLength(&src) / n.z), STACKED == 1u);  // this lane's image
    let d = select(0u, id.z * (arrayLength(&dst) / n.z), STACKED == 1u);
    dst[d + i] = ~src[s + i] & p.mask;
}

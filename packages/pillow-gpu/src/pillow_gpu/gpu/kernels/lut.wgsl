// Per-byte lookup: dst byte c = lut[c * 256 + src byte c] for the four stored bytes.
struct Params { width: u32, height: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> lut: array<u32>;

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
    let v = src[s + i];
    dst[select(0u, id.z * (arrayLength(&dst) / n.z), STACKED == 1u) + i] = lut[v & 255u]
        | (lut[256u + ((v >> 8u) & 255u)] << 8u)
        | (lut[512u + ((v >> 16u) & 255u)] << 16u)
        | (lut[768u + (v >> 24u)] << 24u);
}

// Inversion of stored bytes without a table: dst = ~src & mask, four bytes at once (the lookup
// family's table when every row is 255 - v or all zero, e.g. ImageChops.invert or
// ImageOps.invert of RGB with its padding byte written 0).
struct Params { width: u32, height: u32, mask: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    dst[i] = ~src[i] & p.mask;
}

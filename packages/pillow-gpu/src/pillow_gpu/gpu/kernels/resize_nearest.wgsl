// Nearest resize through host-built index tables: table[0..dst_w) are source columns,
// table[dst_w..dst_w+dst_h) source rows; -1 marks a position outside the source (zero).
struct Params { dst_w: u32, dst_h: u32, src_w: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<i32>;

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.dst_w || id.y >= p.dst_h) {
        return;
    }
    let sx = table[id.x];
    let sy = table[p.dst_w + id.y];
    var v = 0u;
    if (sx >= 0 && sy >= 0) {
        v = src[lane_start(arrayLength(&src), id.z, groups.z) + u32(sy) * p.src_w + u32(sx)];
    }
    dst[lane_start(arrayLength(&dst), id.z, groups.z) + id.y * p.dst_w + id.x] = v;
}

// Constant image: every pixel gets the packed ink `value` (Image.new).
struct Params { width: u32, height: u32, value: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    dst[lane_start(arrayLength(&dst), id.z, groups.z) + id.y * p.width + id.x] = p.value;
}

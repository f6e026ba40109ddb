// A conversion read from a table of Pillow's own results (HSV and LAB: see convert_table.py).
// table[b0 | b1 << 8 | b2 << 16] holds output bytes 0..2 (byte 3 zero) for input bytes
// 0..2; byte 3 of the input (RGB's padding or alpha, HSV's or LAB's padding) is copied
// unchanged, as Pillow's rgb2hsv/hsv2rgb and its LittleCMS transforms copy it.
struct Params { width: u32, height: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let v = src[s + i];
    dst[d + i] = table[v & 0xffffffu] | (v & 0xff000000u);
}

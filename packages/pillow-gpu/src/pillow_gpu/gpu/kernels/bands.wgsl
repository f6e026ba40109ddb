// Band assembly (Image.merge, putalpha): output byte j takes sel[j] < 16 = byte (sel & 3) of
// source (sel >> 2), or sel[j] == 16 = the constant konst[j]. All sources share the output's
// size; unused source slots repeat a used buffer.
struct Params {
    width: u32, height: u32, _pad0: u32, _pad1: u32,
    sel: vec4<u32>,
    konst: vec4<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> s0: array<u32>;
@group(0) @binding(2) var<storage, read> s1: array<u32>;
@group(0) @binding(3) var<storage, read> s2: array<u32>;
@group(0) @binding(4) var<storage, read> s3: array<u32>;
@group(0) @binding(5) var<storage, read_write> dst: array<u32>;

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
    let lane = id.z;
    let words = vec4<u32>(
        s0[lane_start(arrayLength(&s0), lane, groups.z) + i],
        s1[lane_start(arrayLength(&s1), lane, groups.z) + i],
        s2[lane_start(arrayLength(&s2), lane, groups.z) + i],
        s3[lane_start(arrayLength(&s3), lane, groups.z) + i],
    );
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let s = p.sel[j];
        var o = p.konst[j];
        if (s < 16u) {
            o = (words[s >> 2u] >> (8u * (s & 3u))) & 255u;
        }
        out = out | ((o & 255u) << (8u * j));
    }
    dst[lane_start(arrayLength(&dst), lane, groups.z) + i] = out;
}

// One box-blur pass (Pillow's ImagingBoxBlur line pass) along x (horizontal = 1) or y, on all
// four stored bytes, with clamped edges and host-computed integer weights ww and fw.
struct Params {
    width: i32, height: i32, horizontal: u32, r: i32,
    ww: u32, fw: u32, _pad0: u32, _pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn sample(x: i32, y: i32, k: i32) -> vec4<u32> {
    var sx = x;
    var sy = y;
    if (p.horizontal != 0u) {
        sx = clamp(x + k, 0, p.width - 1);
    } else {
        sy = clamp(y + k, 0, p.height - 1);
    }
    let v = src[u32(sy * p.width + sx)];
    return vec4<u32>(v & 255u, (v >> 8u) & 255u, (v >> 16u) & 255u, v >> 24u);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    var acc = vec4<u32>(0u);
    for (var k = -p.r; k <= p.r; k++) {
        acc = acc + sample(x, y, k);
    }
    let edges = sample(x, y, -p.r - 1) + sample(x, y, p.r + 1);
    let o = (acc * p.ww + edges * p.fw + vec4<u32>(1u << 23u)) >> vec4<u32>(24u);
    dst[u32(y * p.width + x)] = o.x | (o.y << 8u) | (o.z << 16u) | (o.w << 24u);
}

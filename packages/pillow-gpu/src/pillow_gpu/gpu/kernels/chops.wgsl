// Binary per-byte composition of two images (ImageChops, blend). Output is the overlap
// width x height; a and b keep their own row strides. Ops 8/9/12 read host-built tables.
struct Params {
    width: u32, height: u32, stride_a: u32, stride_b: u32,
    _op: u32, groups_x: u32, _pad1: u32, _pad2: u32,
}

// The operation is a pipeline constant: each compiles without the others' branches.
override OP: u32 = 0u;
// FLAT = 1: a, b and the output have one size (rows back to back alike), and one invocation
// composes four consecutive words on a linear grid of `groups_x` columns.
override FLAT: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;
@group(0) @binding(4) var<storage, read> table: array<u32>;

fn clip(v: i32) -> u32 {
    return u32(clamp(v, 0, 255));
}

fn chop(x: i32, y: i32) -> u32 {
    switch OP {
        case 0u: { return clip(x * y / 255); }
        case 1u: { return clip(255 - (255 - x) * (255 - y) / 255); }
        case 2u: {
            if (x < 128) { return clip(x * y / 127); }
            return clip(255 - (255 - x) * (255 - y) / 127);
        }
        case 3u: {
            if (y < 128) { return clip(x * y / 127); }
            return clip(255 - (255 - y) * (255 - x) / 127);
        }
        case 4u: {
            return clip((255 - x) * (x * y) / 65536 + (x * (255 - (255 - x) * (255 - y) / 255)) / 255);
        }
        case 5u: { return u32(abs(x - y)); }
        case 6u: { return u32(min(x, y)); }
        case 7u: { return u32(max(x, y)); }
        case 8u: { return table[u32(x + y)]; }
        case 9u: { return table[u32(x - y + 255)]; }
        case 10u: { return u32((x + y) & 255); }
        case 11u: { return u32((x - y) & 255); }
        case 12u: { return table[u32(x * 256 + y)]; }
        // Mode 1's logical chops: any non-zero stored byte is set (Pillow's `in1 && in2`).
        case 13u: { return select(0u, 255u, x != 0 && y != 0); }
        case 14u: { return select(0u, 255u, x != 0 || y != 0); }
        case 15u: { return select(0u, 255u, (x != 0) != (y != 0)); }
        default: { return 0u; }
    }
}

fn composed(va: u32, vb: u32) -> u32 {
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let s = 8u * j;
        out = out | (chop(i32((va >> s) & 255u), i32((vb >> s) & 255u)) << s);
    }
    return out;
}

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let la = lane_start(arrayLength(&a), id.z, n.z);
    let lb = lane_start(arrayLength(&b), id.z, n.z);
    let ld = lane_start(arrayLength(&dst), id.z, n.z);
    if (FLAT == 1u) {
        let first = 4u * ((wid.y * p.groups_x + wid.x) * 256u + lid);
        let words = p.width * p.height;
        for (var k = first; k < min(first + 4u, words); k++) {
            dst[ld + k] = composed(a[la + k], b[lb + k]);
        }
        return;
    }
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let va = a[la + id.y * p.stride_a + id.x];
    let vb = b[lb + id.y * p.stride_b + id.x];
    dst[ld + id.y * p.width + id.x] = composed(va, vb);
}

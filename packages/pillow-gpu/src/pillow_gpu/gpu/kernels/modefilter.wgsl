// Mode filter (Pillow's ImagingModeFilter, applied per band): per stored byte in `mask`, the
// most frequent value of the window clipped to the image (not clamped), ties to the smallest
// value; it replaces the pixel only if it occurs more than twice. Other bytes are written 0.
struct Params {
    width: i32, height: i32, half: i32, mask: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    let sb = lane_start(arrayLength(&src), id.z, groups.z);
    let db = lane_start(arrayLength(&dst), id.z, groups.z);
    var window: array<u32, 49>;
    var n = 0u;
    for (var sy = max(y - p.half, 0); sy <= min(y + p.half, p.height - 1); sy++) {
        for (var sx = max(x - p.half, 0); sx <= min(x + p.half, p.width - 1); sx++) {
            window[n] = src[sb + u32(sy * p.width + sx)];
            n++;
        }
    }
    let centre = src[sb + u32(y * p.width + x)];
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        if ((p.mask & (1u << j)) == 0u) {
            continue;
        }
        let s = 8u * j;
        var best = 0u;
        var best_count = 0u;
        for (var i = 0u; i < n; i++) {
            let v = (window[i] >> s) & 255u;
            var count = 0u;
            for (var k = 0u; k < n; k++) {
                count += select(0u, 1u, ((window[k] >> s) & 255u) == v);
            }
            if (count > best_count || (count == best_count && v < best)) {
                best = v;
                best_count = count;
            }
        }
        let chosen = select((centre >> s) & 255u, best, best_count > 2u);
        out = out | (chosen << s);
    }
    dst[db + u32(y * p.width + x)] = out;
}

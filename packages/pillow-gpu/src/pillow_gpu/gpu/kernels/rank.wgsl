// Rank filter (median/min/max/rank): per stored byte, the rank-th smallest value of the
// size x size window with clamped edges (size <= 7); bytes outside `mask` are written as 0.
struct Params {
    width: i32, height: i32, size: i32, rank: u32,
    mask: u32, _pad0: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= p.width || y >= p.height) {
        return;
    }
    var window: array<u32, 49>;
    let m = p.size / 2;
    var n = 0u;
    for (var dy = -m; dy <= m; dy++) {
        for (var dx = -m; dx <= m; dx++) {
            let sx = clamp(x + dx, 0, p.width - 1);
            let sy = clamp(y + dy, 0, p.height - 1);
            window[n] = src[u32(sy * p.width + sx)];
            n++;
        }
    }
    var out = 0u;
    for (var j = 0u; j < 4u; j++) {
        let s = 8u * j;
        var chosen = 0u;
        for (var i = 0u; i < n; i++) {
            let v = (window[i] >> s) & 255u;
            var less = 0u;
            var equal = 0u;
            for (var k = 0u; k < n; k++) {
                let w = (window[k] >> s) & 255u;
                less += select(0u, 1u, w < v);
                equal += select(0u, 1u, w == v);
            }
            if (less <= p.rank && p.rank < less + equal) {
                chosen = v;
            }
        }
        if ((p.mask & (1u << j)) != 0u) {
            out = out | (chosen << s);
        }
    }
    dst[u32(y * p.width + x)] = out;
}

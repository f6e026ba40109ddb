// Rank filter, 3x3 at any rank but min, median and max (RankFilter(3, rank)): per stored
// byte, the rank-th smallest of the 3x3 window with clamped (replicated) edges; bytes outside
// the band mask (`bytes`) are written 0.
//
// Method: a 25-comparator sorting network of nine (sort the three triples, merge them
// column-wise, fix up; checked on all 512 0/1 inputs, so by the 0-1 principle it sorts any
// input), then the rank-th output.
//
// Lanes and packing as in rank.wgsl.
//!include rank_lanes.wgsli

fn sort9(x0: i32, y: i32) -> vec4<u32> {
    var s0 = lanes(x0, -1, y - 1);
    var s1 = lanes(x0, 0, y - 1);
    var s2 = lanes(x0, 1, y - 1);
    var s3 = lanes(x0, -1, y);
    var s4 = lanes(x0, 0, y);
    var s5 = lanes(x0, 1, y);
    var s6 = lanes(x0, -1, y + 1);
    var s7 = lanes(x0, 0, y + 1);
    var s8 = lanes(x0, 1, y + 1);
    var t: vec4<u32>;
    // Sort the three triples, merge them column-wise, then the last fix-ups (25 comparators).
    t = min(s0, s1); s1 = max(s0, s1); s0 = t;
    t = min(s3, s4); s4 = max(s3, s4); s3 = t;
    t = min(s6, s7); s7 = max(s6, s7); s6 = t;
    t = min(s1, s2); s2 = max(s1, s2); s1 = t;
    t = min(s4, s5); s5 = max(s4, s5); s4 = t;
    t = min(s7, s8); s8 = max(s7, s8); s7 = t;
    t = min(s0, s1); s1 = max(s0, s1); s0 = t;
    t = min(s3, s4); s4 = max(s3, s4); s3 = t;
    t = min(s6, s7); s7 = max(s6, s7); s6 = t;
    t = min(s0, s3); s3 = max(s0, s3); s0 = t;
    t = min(s3, s6); s6 = max(s3, s6); s3 = t;
    t = min(s0, s3); s3 = max(s0, s3); s0 = t;
    t = min(s1, s4); s4 = max(s1, s4); s1 = t;
    t = min(s4, s7); s7 = max(s4, s7); s4 = t;
    t = min(s1, s4); s4 = max(s1, s4); s1 = t;
    t = min(s2, s5); s5 = max(s2, s5); s2 = t;
    t = min(s5, s8); s8 = max(s5, s8); s5 = t;
    t = min(s2, s5); s5 = max(s2, s5); s2 = t;
    t = min(s1, s3); s3 = max(s1, s3); s1 = t;
    t = min(s5, s7); s7 = max(s5, s7); s5 = t;
    t = min(s2, s6); s6 = max(s2, s6); s2 = t;
    t = min(s4, s6); s6 = max(s4, s6); s4 = t;
    t = min(s2, s4); s4 = max(s2, s4); s2 = t;
    t = min(s2, s3); s3 = max(s2, s3); s2 = t;
    t = min(s5, s6); s6 = max(s5, s6); s5 = t;
    switch p.rank {
        case 0u: { return s0; }
        case 1u: { return s1; }
        case 2u: { return s2; }
        case 3u: { return s3; }
        case 4u: { return s4; }
        case 5u: { return s5; }
        case 6u: { return s6; }
        case 7u: { return s7; }
        default: { return s8; }
    }
}


@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    enter_lane(id.z, n.z);
    let x0 = first_pixel(id.x);
    let y = i32(id.y);
    if (x0 >= p.width || y >= p.height) {
        return;
    }
    store(x0, y, finish(sort9(x0, y)));
}

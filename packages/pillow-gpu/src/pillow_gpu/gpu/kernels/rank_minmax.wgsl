// Rank filter, min and max (MinFilter, MaxFilter, and RankFilter at rank 0 or size^2 - 1):
// one line pass, the min (op 0) or max (op 1) of `size` samples along (step_x, step_y) with
// clamped (replicated) edges; bytes outside the band mask (`bytes`) are written 0.
//
// Method: separable min/max, a row pass then a column pass (rank_minmax.py). The clamped 2-D
// window is the product of its clamped rows and clamped columns, so the min over the rows of
// the row minima is the window's min: 2 x size samples per pixel, not size^2.
//
// Lanes and packing as in rank.wgsl.
//!include rank_lanes.wgsli

// Min (op 0) or max (op 1) of `size` samples centred on (x0, y) along (step_x, step_y).
fn line(x0: i32, y: i32) -> vec4<u32> {
    let m = p.size / 2;
    var v = lanes(x0, -m * p.step_x, y - m * p.step_y);
    for (var i = 1 - m; i <= m; i++) {
        let s = lanes(x0, i * p.step_x, y + i * p.step_y);
        v = select(min(v, s), max(v, s), p.op == 1u);
    }
    return v;
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
    store(x0, y, finish(line(x0, y)));
}

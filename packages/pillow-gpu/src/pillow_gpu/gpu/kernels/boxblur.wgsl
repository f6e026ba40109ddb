// One box-blur pass (Pillow's ImagingBoxBlur line pass) as a running sum: each invocation
// slides the window along one segment of one line (a row or a column), adding the entering
// sample and subtracting the leaving one, so a pass costs O(1) per pixel whatever the radius.
// All four stored bytes at once (vec4<u32>), edges clamped to the nearest pixel, host-computed
// integer weights ww and fw:
//   out[i] = (acc(i) * ww + (in[clamp(i-r-1)] + in[clamp(i+r+1)]) * fw + 2^23) >> 24,
//   acc(i) = sum_{k=i-r..i+r} in[clamp(k)].
// The sum is exact integer arithmetic, so the running form equals the per-pixel window sum.
//
// Sample j of line l is word l * line + j * step of its buffer (separately for src and dst):
// row-major rows, row-major columns and the transposed intermediate of the horizontal passes
// are all the same kernel with other strides (see boxblur.py), so no mode switch is needed.
// Invocation k takes line k % lines and segment k / lines: neighbouring invocations work on
// neighbouring lines at the same position, so a column pass (and a horizontal pass over a
// transposed buffer) reads and writes consecutive words in lockstep.
//
// u32 bounds (r <= 256, every byte <= 255):
// * acc is a sum of 2r + 1 <= 513 samples: <= 513 * 255 = 130815 per lane. Sliding computes
//   (acc + entering) - leaving; leaving is one of acc's own samples, so it never wraps.
// * ww <= 2^24 / (2r + 1) (boxblur.weights proves it for Pillow's float32 ww) and
//   2 * fw <= 2^24 - (2r + 1) * ww, so acc * ww + edges * fw
//   <= 255 * ((2r + 1) * ww + 2 * fw) <= 255 * 2^24 = 4278190080, and adding 2^23 gives at
//   most 4286578688 < 2^32 = 4294967296: no product or sum wraps.
struct Params {
    lines: u32, length: i32, src_line: u32, src_step: u32,
    dst_line: u32, dst_step: u32, r: i32, ww: u32,
    fw: u32, segment: i32, groups_x: u32, _pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn lanes(v: u32) -> vec4<u32> {
    return (vec4<u32>(v) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
}

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) n: vec3<u32>,
) {
    let k = (wid.y * p.groups_x + wid.x) * 256u + lid;
    let segments = u32((p.length + p.segment - 1) / p.segment);
    if (k >= p.lines * segments) {
        return;
    }
    let line = k % p.lines;
    let start = i32(k / p.lines) * p.segment;
    let stop = min(start + p.segment, p.length);
    let last = p.length - 1;
    let base = lane_start(arrayLength(&src), wid.z, n.z) + line * p.src_line;
    let step = p.src_step;
    // The first window [start - r, start + r]: the part inside the line is summed, the parts
    // clamped to the first or last sample are counted (at most r each).
    let lo = start - p.r;
    let hi = start + p.r;
    var acc = lanes(src[base]) * u32(max(-lo, 0))
        + lanes(src[base + u32(last) * step]) * u32(max(hi - last, 0));
    for (var j = max(lo, 0); j <= min(hi, last); j++) {
        acc += lanes(src[base + u32(j) * step]);
    }
    var left = lanes(src[base + u32(clamp(lo - 1, 0, last)) * step]);
    let dst_base = lane_start(arrayLength(&dst), wid.z, n.z) + line * p.dst_line;
    for (var i = start; i < stop; i++) {
        // i + r + 1 >= 0 and i - r <= last always hold: one side of each clamp suffices.
        let right = lanes(src[base + u32(min(i + p.r + 1, last)) * step]);
        let o = (acc * p.ww + (left + right) * p.fw + vec4<u32>(8388608u)) >> vec4<u32>(24u);
        dst[dst_base + u32(i) * p.dst_step] = o.x | (o.y << 8u) | (o.z << 16u) | (o.w << 24u);
        let leaving = lanes(src[base + u32(max(i - p.r, 0)) * step]);
        acc = acc + right - leaving;
        left = leaving;
    }
}

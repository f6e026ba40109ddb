// Reference kernels: one pass of Pillow's box blur (ImagingBoxBlur) on packed stored bytes.
// GaussianBlur(r) is three horizontal passes then three vertical ones, each rounded to u8:
//   out = (sum_{k=-r..r} in[clamp(x+k)] * ww + (in[clamp(x-r-1)] + in[clamp(x+r+1)]) * fw
//          + 2^23) >> 24
// with edges clamped to the nearest pixel; ww and fw come from the host (float32 arithmetic).
// `box_h_words` / `box_v_words` treat a word as one pixel of four bands; `box_h_l4` treats a
// word as four consecutive L pixels of a row (`box_v_words` serves L too: a column of words is
// four columns of pixels).

struct Params {
    width: u32,   // words per row
    height: u32,
    radius: u32,
    ww: u32,
    fw: u32,
    pixels: u32,  // pixels per row (box_h_l4)
    image_words: u32,  // buffer words per image (workgroup z is the image)
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// A window dispatches each pass once for its whole chunk of images: workgroup z is the
// image, whose words start image_words * z into each buffer.

fn lanes(word: u32) -> vec4<u32> {
    return (vec4<u32>(word) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
}

fn packed(v: vec4<u32>) -> u32 {
    return v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u);
}

fn rounded(sum: vec4<u32>, edges: vec4<u32>) -> vec4<u32> {
    return (sum * params.ww + edges * params.fw + vec4<u32>(8388608u)) >> vec4<u32>(24u);
}

@compute @workgroup_size(64)
fn box_h_words(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) {
        return;
    }
    let base = id.z * params.image_words + id.y * params.width;
    let last = i32(params.width) - 1;
    let x = i32(id.x);
    let r = i32(params.radius);
    var sum = vec4<u32>(0u);
    for (var k = -r; k <= r; k++) {
        sum += lanes(src[base + u32(clamp(x + k, 0, last))]);
    }
    let edges = lanes(src[base + u32(clamp(x - r - 1, 0, last))])
        + lanes(src[base + u32(clamp(x + r + 1, 0, last))]);
    dst[base + id.x] = packed(rounded(sum, edges));
}

@compute @workgroup_size(64)
fn box_v_words(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) {
        return;
    }
    let last = i32(params.height) - 1;
    let y = i32(id.y);
    let r = i32(params.radius);
    let column = id.z * params.image_words + id.x;
    var sum = vec4<u32>(0u);
    for (var k = -r; k <= r; k++) {
        sum += lanes(src[u32(clamp(y + k, 0, last)) * params.width + column]);
    }
    let edges = lanes(src[u32(clamp(y - r - 1, 0, last)) * params.width + column])
        + lanes(src[u32(clamp(y + r + 1, 0, last)) * params.width + column]);
    dst[id.y * params.width + column] = packed(rounded(sum, edges));
}

fn pixel_l(base: u32, x: i32) -> u32 {
    let cx = u32(clamp(x, 0, i32(params.pixels) - 1));
    return (src[base + (cx >> 2u)] >> ((cx & 3u) * 8u)) & 255u;
}

@compute @workgroup_size(64)
fn box_h_l4(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) {
        return;
    }
    let base = id.z * params.image_words + id.y * params.width;
    let first = i32(id.x * 4u);
    let r = i32(params.radius);
    // The four pixels of this word, each with its own window of 2r+1 taps and two edge taps.
    var sum = vec4<u32>(0u);
    var edges = vec4<u32>(0u);
    for (var j = 0; j < 4; j++) {
        let x = first + j;
        var s = 0u;
        for (var k = -r; k <= r; k++) {
            s += pixel_l(base, x + k);
        }
        sum[j] = s;
        edges[j] = pixel_l(base, x - r - 1) + pixel_l(base, x + r + 1);
    }
    dst[base + id.x] = packed(rounded(sum, edges));
}

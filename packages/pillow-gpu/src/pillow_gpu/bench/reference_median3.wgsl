// Reference kernels: invert fused with a 3x3 median (MedianFilter(3): clamp-padded edges).
// Pixels stay packed in u32 words. `median_words` treats a word as one pixel of four bands
// (RGB as RGBX, RGBA); `median_l4` treats a word as four consecutive L pixels of a row (the
// width is a multiple of four). Both take the median of the nine neighbours per byte lane with
// the 19-exchange selection network on vec4<u32> lanes; the median commutes with 255 - x, so
// the invert is one `~` of the packed result.

struct Params {
    width: u32,   // words per row
    height: u32,
    image_words: u32,  // buffer words per image (workgroup z is the image)
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// A window dispatches each pass once for its whole chunk of images: workgroup z is the
// image, whose words start image_words * z into each buffer.
var<private> base: u32;

fn lanes(word: u32) -> vec4<u32> {
    return (vec4<u32>(word) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
}

fn packed(v: vec4<u32>) -> u32 {
    return v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u);
}

fn median9(
    q0: vec4<u32>, q1: vec4<u32>, q2: vec4<u32>,
    q3: vec4<u32>, q4: vec4<u32>, q5: vec4<u32>,
    q6: vec4<u32>, q7: vec4<u32>, q8: vec4<u32>,
) -> vec4<u32> {
    var p0 = q0; var p1 = q1; var p2 = q2; var p3 = q3; var p4 = q4;
    var p5 = q5; var p6 = q6; var p7 = q7; var p8 = q8;
    var t: vec4<u32>;
    t = min(p1, p2); p2 = max(p1, p2); p1 = t;
    t = min(p4, p5); p5 = max(p4, p5); p4 = t;
    t = min(p7, p8); p8 = max(p7, p8); p7 = t;
    t = min(p0, p1); p1 = max(p0, p1); p0 = t;
    t = min(p3, p4); p4 = max(p3, p4); p3 = t;
    t = min(p6, p7); p7 = max(p6, p7); p6 = t;
    t = min(p1, p2); p2 = max(p1, p2); p1 = t;
    t = min(p4, p5); p5 = max(p4, p5); p4 = t;
    t = min(p7, p8); p8 = max(p7, p8); p7 = t;
    t = min(p0, p3); p3 = max(p0, p3); p0 = t;
    t = min(p5, p8); p8 = max(p5, p8); p5 = t;
    t = min(p4, p7); p7 = max(p4, p7); p4 = t;
    t = min(p3, p6); p6 = max(p3, p6); p3 = t;
    t = min(p1, p4); p4 = max(p1, p4); p1 = t;
    t = min(p2, p5); p5 = max(p2, p5); p2 = t;
    t = min(p4, p7); p7 = max(p4, p7); p4 = t;
    t = min(p4, p2); p2 = max(p4, p2); p4 = t;
    t = min(p6, p4); p4 = max(p6, p4); p6 = t;
    t = min(p4, p2); p2 = max(p4, p2); p4 = t;
    return p4;
}

fn word_at(x: i32, y: i32) -> u32 {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    return src[base + cy * params.width + cx];
}

@compute @workgroup_size(64)
fn median_words(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) {
        return;
    }
    base = id.z * params.image_words;
    let x = i32(id.x);
    let y = i32(id.y);
    let m = median9(
        lanes(word_at(x - 1, y - 1)), lanes(word_at(x, y - 1)), lanes(word_at(x + 1, y - 1)),
        lanes(word_at(x - 1, y)), lanes(word_at(x, y)), lanes(word_at(x + 1, y)),
        lanes(word_at(x - 1, y + 1)), lanes(word_at(x, y + 1)), lanes(word_at(x + 1, y + 1)),
    );
    dst[base + id.y * params.width + id.x] = ~packed(m);
}

// Pixels 4x-1 .. 4x+2, 4x .. 4x+3 and 4x+1 .. 4x+4 of row `y` (clamped at the row's ends).
struct Shifted {
    left: vec4<u32>,
    centre: vec4<u32>,
    right: vec4<u32>,
}

fn row_l4(x: u32, y: i32) -> Shifted {
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    let row = base + cy * params.width;
    let last = params.width - 1u;
    let word = src[row + x];
    var before = word & 255u;  // pixel 0 stands in for pixel -1
    if (x > 0u) {
        before = src[row + x - 1u] >> 24u;
    }
    var after = word >> 24u;  // the last pixel stands in for the one past it
    if (x < last) {
        after = src[row + x + 1u] & 255u;
    }
    return Shifted(
        lanes((word << 8u) | before),
        lanes(word),
        lanes((word >> 8u) | (after << 24u)),
    );
}

@compute @workgroup_size(64)
fn median_l4(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) {
        return;
    }
    base = id.z * params.image_words;
    let y = i32(id.y);
    let a = row_l4(id.x, y - 1);
    let b = row_l4(id.x, y);
    let c = row_l4(id.x, y + 1);
    let m = median9(a.left, a.centre, a.right, b.left, b.centre, b.right, c.left, c.centre, c.right);
    dst[base + id.y * params.width + id.x] = ~packed(m);
}

// Reference kernel: ImageChops.invert on packed stored bytes. Every byte of a word is inverted
// (L: four pixels per word; RGB/RGBA: one pixel, the RGB padding byte included and ignored).

struct Params {
    words: u32,
    row: u32,     // words per dispatch row (the grid is 2-D to stay within dispatch limits)
    image_words: u32,  // buffer words per image (workgroup z is the image)
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// A window dispatches each pass once for its whole chunk of images: workgroup z is the
// image, whose words start image_words * z into each buffer.
@compute @workgroup_size(64)
fn invert_words(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.y * params.row + id.x;
    if (id.x >= params.row || index >= params.words) {
        return;
    }
    let at = id.z * params.image_words + index;
    dst[at] = ~src[at];
}

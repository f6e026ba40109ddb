// Reference kernel: ImageChops.invert on packed stored bytes. Every byte of a word is inverted
// (L: four pixels per word; RGB/RGBA: one pixel, the RGB padding byte included and ignored).

struct Params {
    words: u32,
    row: u32,     // words per dispatch row (the grid is 2-D to stay within dispatch limits)
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn invert_words(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.y * params.row + id.x;
    if (id.x >= params.row || index >= params.words) {
        return;
    }
    dst[index] = ~src[index];
}

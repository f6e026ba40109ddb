// convert to P or 1 where Pillow's result is a fixed function of the pixel (dither NONE):
// the output byte (a palette index, or 1's 0/255) repeated in all four bytes of the word, the
// layout of P and 1 images on the device.
// KIND 0: the WEB palette's closest colour, which Pillow keeps per cell (r >> 2, g >> 2,
//   b >> 2) of the stored bytes 0..2: table = 64^3 bytes, four to a word.
// KIND 1: a byte-0 table (L, LA, 1 stored bytes -> index or bilevel byte): 256 bytes, four
//   to a word.
// KIND 2: Pillow's rgb2bit: 255 where r * 299 + g * 587 + b * 114 >= table[0] (128000).
struct Params { width: u32, height: u32, _pad0: u32, _pad1: u32 }

// The kind is a pipeline constant: each compiles without the other kinds' branches.
override KIND: u32 = 0u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;

fn table_byte(index: u32) -> u32 {
    return (table[index >> 2u] >> (8u * (index & 3u))) & 255u;
}

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= p.width || id.y >= p.height) {
        return;
    }
    let i = id.y * p.width + id.x;
    let s = lane_start(arrayLength(&src), id.z, groups.z);
    let d = lane_start(arrayLength(&dst), id.z, groups.z);
    let v = src[s + i];
    var byte = 0u;
    if (KIND == 0u) {
        let cell = ((v & 0xFCu) << 10u) | ((v >> 4u) & 0xFC0u) | ((v >> 18u) & 0x3Fu);
        byte = table_byte(cell);
    } else if (KIND == 1u) {
        byte = table_byte(v & 255u);
    } else {
        let luma = (v & 255u) * 299u + ((v >> 8u) & 255u) * 587u + ((v >> 16u) & 255u) * 114u;
        byte = select(0u, 255u, luma >= table[0]);
    }
    dst[d + i] = byte * 0x01010101u;
}

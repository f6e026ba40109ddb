// ImageOps.equalize's lookup table, built on the device from the histogram dispatch's bins
// (hist[b * 256 + v], bands rows) into a (4, 256) per-stored-byte table for the lut kernel.
// One invocation per stored byte; rows b >= bands (RGB's padding byte, L's bytes 1..3) are 0,
// the byte Pillow's point() writes there. Pillow 13.0.0 (PIL/ImageOps.py equalize), per band:
//
//     histo = [_f for _f in h[b : b + 256] if _f]
//     if len(histo) <= 1: lut = range(256)
//     else:
//         step = (sum(histo) - histo[-1]) // 255
//         if not step: lut = range(256)
//         else:
//             n = step // 2
//             for i in range(256): lut.append(n // step); n = n + h[i + b]
//
// then image.point(lut), which clips every entry to 0..255 (CLIP8); entries are never < 0.
// Bounds: total <= 2^26 pixels, so step <= 2^26 / 255 and n <= step / 2 + total < 2^27 < 2^32.
struct Params { bands: u32, groups_x: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read_write> table: array<u32>;

//!include stacked.wgsli

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (lid >= 4u) {
        return;
    }
    let hb = lane_start(arrayLength(&hist), wid.z, groups.z);
    let tb = lane_start(arrayLength(&table), wid.z, groups.z);
    let row = lid * 256u;
    if (lid >= p.bands) {
        for (var i = 0u; i < 256u; i++) {
            table[tb + row + i] = 0u;
        }
        return;
    }
    var total = 0u;
    var nonzero = 0u;
    var last = 0u;
    for (var i = 0u; i < 256u; i++) {
        let h = hist[hb + row + i];
        if (h != 0u) {
            total += h;
            nonzero += 1u;
            last = h;
        }
    }
    let step = (total - last) / 255u;
    if (nonzero <= 1u || step == 0u) {
        for (var i = 0u; i < 256u; i++) {
            table[tb + row + i] = i;
        }
        return;
    }
    var n = step / 2u;
    for (var i = 0u; i < 256u; i++) {
        table[tb + row + i] = min(n / step, 255u);
        n += hist[hb + row + i];
    }
}

// ImageOps.autocontrast's lookup table, chosen on the device from the histogram dispatch's
// bins (hist[b * 256 + v], hist_bands rows) into a (4, 256) per-stored-byte table for the lut
// kernel. One invocation per stored byte (x < 4 of a 16x16 group); rows b >= out_bands (RGB's
// padding byte, L's bytes 1..3) are 0; with hist_bands == 1 (preserve_tone) every row uses
// band 0. Pillow 13.0.0 (PIL/ImageOps.py autocontrast), per band:
//
//     h[ix] = 0 for ix in ignore
//     if cutoff:  n = sum(h); cut = int(n * cutoff[0] // 100)
//         for lo in range(256):  (h[lo], cut) trimmed from the low end while cut > 0
//         cut = int(n * cutoff[1] // 100); the same from the high end
//     lo = first non-zero bin (255 if none); hi = last non-zero bin (0 if none)
//     hi <= lo: range(256); else LUT(lo, hi), the only floating-point part
//
// LUT(lo, hi) is row hi * (hi - 1) / 2 + lo of the resident pair table (64 u32 words per row,
// entry ix in byte ix % 4 of word ix / 4), built on the host in Pillow's double arithmetic.
// Cuts: host-computed (device_cut == 0), or ((n * p) >> k) / 100 with n * p < 2^32 (checked at
// admission: n <= pixels). Trimming with cut 0 changes nothing, as in Pillow.
struct Params {
    hist_bands: u32, out_bands: u32, device_cut: u32, _pad0: u32,
    cut_lo: u32, cut_hi: u32, p_lo: u32, k_lo: u32,
    p_hi: u32, k_hi: u32, _pad1: u32, _pad2: u32,
    ignore_a: vec4<u32>, ignore_b: vec4<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read_write> table: array<u32>;
@group(0) @binding(3) var<storage, read> pairs: array<u32>;  // after the images: shared by lanes

fn ignored(v: u32) -> bool {
    let word = v / 32u;
    var bits = 0u;
    if (word < 4u) {
        bits = p.ignore_a[word];
    } else {
        bits = p.ignore_b[word - 4u];
    }
    return ((bits >> (v % 32u)) & 1u) != 0u;
}

//!include stacked.wgsli

@compute @workgroup_size(16, 16)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if (id.x >= 4u || id.y != 0u) {
        return;
    }
    let hb = lane_start(arrayLength(&hist), id.z, groups.z);
    let tb = lane_start(arrayLength(&table), id.z, groups.z);
    let row = id.x * 256u;
    if (id.x >= p.out_bands) {
        for (var i = 0u; i < 256u; i++) {
            table[tb + row + i] = 0u;
        }
        return;
    }
    let band = select(id.x, 0u, p.hist_bands == 1u) * 256u;
    var h: array<u32, 256>;
    var n = 0u;
    for (var i = 0u; i < 256u; i++) {
        var count = hist[hb + band + i];
        if (ignored(i)) {
            count = 0u;
        }
        h[i] = count;
        n += count;
    }
    var cut_lo = p.cut_lo;
    var cut_hi = p.cut_hi;
    if (p.device_cut != 0u) {
        cut_lo = ((n * p.p_lo) >> p.k_lo) / 100u;
        cut_hi = ((n * p.p_hi) >> p.k_hi) / 100u;
    }
    var cut = cut_lo;
    for (var i = 0u; i < 256u; i++) {
        if (cut > h[i]) {
            cut -= h[i];
            h[i] = 0u;
        } else {
            h[i] -= cut;
            cut = 0u;
        }
        if (cut == 0u) {
            break;
        }
    }
    cut = cut_hi;
    for (var j = 0u; j < 256u; j++) {
        let i = 255u - j;
        if (cut > h[i]) {
            cut -= h[i];
            h[i] = 0u;
        } else {
            h[i] -= cut;
            cut = 0u;
        }
        if (cut == 0u) {
            break;
        }
    }
    var lo = 255u;
    for (var i = 0u; i < 256u; i++) {
        if (h[i] != 0u) {
            lo = i;
            break;
        }
    }
    var hi = 0u;
    for (var j = 0u; j < 256u; j++) {
        if (h[255u - j] != 0u) {
            hi = 255u - j;
            break;
        }
    }
    if (hi <= lo) {
        for (var i = 0u; i < 256u; i++) {
            table[tb + row + i] = i;
        }
        return;
    }
    let base = (hi * (hi - 1u) / 2u + lo) * 64u;
    for (var i = 0u; i < 256u; i++) {
        table[tb + row + i] = (pairs[base + i / 4u] >> (8u * (i % 4u))) & 255u;
    }
}

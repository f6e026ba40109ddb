// Rank filter, 5x5 and 7x7 windows at any rank but min and max (those are rank_minmax): per
// stored byte, the rank-th smallest value of the window with clamped (replicated) edges;
// bytes outside the band mask (`bytes`: 0xFF per band byte) are written 0.
//
// Method: bitwise radix select. Per lane, from bit 7 down, count the window samples at or
// above the candidate prefix | bit and keep the bit while at most `rank` samples lie below it
// (the rank-th smallest is then at least the candidate): 8 passes of n counts instead of n^2
// comparisons. SWAR: a sample's four lanes are split into two words of two 16-bit lanes that
// hold 0x100 + sample, so lane - candidate (both <= 255) never borrows from the next lane and
// its bit 8 says sample >= candidate; the masked bits add up to 0x100 x count per lane.
// Lanes and packing as in rank.wgsl (four bytes of a pixel, two LA or four L pixels).
//!include rank_lanes.wgsli

// The window edge (5 or 7) is a pipeline constant: each compiles without the other's select.
override WINDOW: u32 = 7u;

const LANE_ONE: u32 = 0x01000100u;
const LANE_PAIR: u32 = 0x00010001u;
// Count lanes hold 0x100 x count <= 0x3100, so count + 0x4000 - need stays in 0x0F00..0x7100:
// no borrow between lanes, and bit 14 says count >= need.
const COUNT_BIAS: u32 = 0x40004000u;


// One radix-select step: `prefix` with `bit` set in each 16-bit lane whose `count` (0x100 x
// the samples >= prefix | bit) reaches `need` (0x100 x (n - rank)), i.e. where at most `rank`
// samples lie below the candidate, so the rank-th smallest is at least the candidate.
fn keep(prefix: u32, count: u32, need: u32, bit: u32) -> u32 {
    let take = ((count + COUNT_BIAS - need) >> 14u) & LANE_PAIR;
    return prefix | (take << bit);
}

fn select25(x0: i32, y: i32) -> vec4<u32> {
    var ev = array<u32, 25>();
    var od = array<u32, 25>();
    for (var i = 0; i < 25; i++) {
        let l = lanes(x0, i % 5 - 2, y + i / 5 - 2);
        ev[i] = l.x | (l.z << 16u) | LANE_ONE;
        od[i] = l.y | (l.w << 16u) | LANE_ONE;
    }
    let need = (25u - p.rank) * LANE_ONE;  // samples >= candidate must be at least n - rank
    var pe = 0u;
    var po = 0u;
    for (var b = 0u; b < 8u; b++) {
        let bit = 7u - b;
        let ce = pe | (LANE_PAIR << bit);
        let co = po | (LANE_PAIR << bit);
        var ae = 0u;
        var ao = 0u;
        for (var k = 0; k < 25; k++) {
            ae += (ev[k] - ce) & LANE_ONE;
            ao += (od[k] - co) & LANE_ONE;
        }
        pe = keep(pe, ae, need, bit);
        po = keep(po, ao, need, bit);
    }
    return vec4<u32>(pe & 255u, po & 255u, pe >> 16u, po >> 16u);
}

fn select49(x0: i32, y: i32) -> vec4<u32> {
    var ev = array<u32, 49>();
    var od = array<u32, 49>();
    for (var i = 0; i < 49; i++) {
        let l = lanes(x0, i % 7 - 3, y + i / 7 - 3);
        ev[i] = l.x | (l.z << 16u) | LANE_ONE;
        od[i] = l.y | (l.w << 16u) | LANE_ONE;
    }
    let need = (49u - p.rank) * LANE_ONE;
    var pe = 0u;
    var po = 0u;
    for (var b = 0u; b < 8u; b++) {
        let bit = 7u - b;
        let ce = pe | (LANE_PAIR << bit);
        let co = po | (LANE_PAIR << bit);
        var ae = 0u;
        var ao = 0u;
        for (var k = 0; k < 49; k++) {
            ae += (ev[k] - ce) & LANE_ONE;
            ao += (od[k] - co) & LANE_ONE;
        }
        pe = keep(pe, ae, need, bit);
        po = keep(po, ao, need, bit);
    }
    return vec4<u32>(pe & 255u, po & 255u, pe >> 16u, po >> 16u);
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
    if (WINDOW == 5u) {
        store(x0, y, finish(select25(x0, y)));
    } else {
        store(x0, y, finish(select49(x0, y)));
    }
}

//! The shards' colours: one per shard index, up to the 64 shards a cluster may have.
//!
//! The first eight are the Okabe-Ito palette, which stays distinguishable for the common
//! forms of colour blindness. The next 56 step round the hue circle by the golden angle
//! at alternating lightness and saturation, so any eight consecutive shards differ
//! clearly (at least 20 ΔE apart). Shards eight apart can still look alike, so from the
//! ninth on each group of eight also gets a pattern of its own ([`shard_pattern`]), and
//! every shard's name is printed beside its colour.

/// Each shard's colour, by shard index: the protocol's, which the engine's catalogue gives
/// every other view.
pub use shardlab_protocol::SHARD_COLOURS;

/// The stripes over each group of eight shards' fills, after the first group's plain ones
/// (CSS backgrounds drawn over the colour).
const PATTERNS: [&str; 7] = [
    "repeating-linear-gradient(45deg, rgba(255,255,255,0.5) 0 2px, transparent 2px 6px)",
    "repeating-linear-gradient(-45deg, rgba(255,255,255,0.5) 0 2px, transparent 2px 6px)",
    "repeating-linear-gradient(90deg, rgba(255,255,255,0.5) 0 2px, transparent 2px 6px)",
    "repeating-linear-gradient(0deg, rgba(255,255,255,0.5) 0 2px, transparent 2px 6px)",
    "radial-gradient(rgba(255,255,255,0.6) 1.5px, transparent 1.6px) 0 0 / 6px 6px",
    "repeating-linear-gradient(45deg, rgba(0,0,0,0.3) 0 2px, transparent 2px 6px)",
    "repeating-linear-gradient(-45deg, rgba(0,0,0,0.3) 0 2px, transparent 2px 6px)",
];

/// Shard `index`'s colour.
pub fn shard_colour(index: u32) -> &'static str {
    SHARD_COLOURS[index as usize % SHARD_COLOURS.len()]
}

/// The pattern over shard `index`'s fills: none for the first eight.
pub fn shard_pattern(index: u32) -> Option<&'static str> {
    let group = (index as usize % SHARD_COLOURS.len()) / 8;
    group.checked_sub(1).and_then(|g| PATTERNS.get(g).copied())
}

/// The inline style that gives an element shard `index`'s colour and pattern: the
/// stylesheet draws `--shard-colour` and `--shard-pattern`.
pub fn shard_style(index: u32) -> String {
    format!(
        "--shard-colour: {}; --shard-pattern: {};",
        shard_colour(index),
        shard_pattern(index).unwrap_or("none")
    )
}

/// The hot tint's colour, as RGB components (the stylesheet's `--hot`).
pub const HOT_RGB: &str = "213, 94, 0";

/// The hot tint's opacity for each heat step (the stylesheet's `.chunk.heat-1` to
/// `.chunk.heat-4`).
pub const HEAT_ALPHAS: [f64; 4] = [0.06, 0.12, 0.19, 0.25];

/// The heat step of a chunk that gained `gained` documents since the previous frame: 0 to
/// 3 for 1-10, 11-20, 21-30 and more; none when it gained nothing. The page and the
/// exported picture tint a chunk by it.
pub fn heat_step(gained: u64) -> Option<usize> {
    (gained > 0).then(|| ((gained - 1) / 10).min(3) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn every_shard_has_its_own_colour_and_each_group_its_pattern() {
        let mut seen: Vec<&str> = (0..64).map(shard_colour).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 64);
        assert_ne!(shard_colour(0), shard_colour(8), "shard01 and shard09");
        assert_eq!(shard_pattern(7), None);
        let mut patterns: Vec<&str> = (1..8).filter_map(|g| shard_pattern(g * 8)).collect();
        patterns.dedup();
        assert_eq!(patterns.len(), 7);
    }
}

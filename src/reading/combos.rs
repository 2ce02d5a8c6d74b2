//! Combination words: the designed nvdisasm experiments the reading is learned from and checked
//! on. Per variant, words with every bit the variant does not fix drawn at random (scheduling,
//! reuse and undescribed bits included), in splits drawn from different seeds: `learn` (the
//! model may learn from it), `relearn` (learned from too, drawn from the final reading's
//! layout) and `check` (never learned from; the headline figure).
//!
//! Files: `oracle/combos/<split>/<ARCH>-<MNEMONIC>.tsv` (see [`split_file`]), listed in
//! oracle/MANIFEST.json like every recording.

use crate::arch::Arch;
use crate::codec::SplitMix64;
use crate::spec::Variant;
use std::path::Path;

/// Folder under the oracle root that holds the combination recordings.
pub const COMBOS_DIR: &str = "combos";

/// Which split a combination recording belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// Words the model learns from.
    Learn,
    /// Words the model learns from, drawn again from the layout the learning ended with: bits
    /// the first learn split held fixed and the learning found to be fields (SM90 UBLKCP bits
    /// 77-80, where nvdisasm refuses most values with "Unrecognized operation for functional
    /// unit 'uC'") vary here as they do in the check split.
    Relearn,
    /// Words never learned from: the figure that counts.
    Check,
}

impl Split {
    /// `learn`, `relearn` or `check`.
    pub fn name(self) -> &'static str {
        match self {
            Split::Learn => "learn",
            Split::Relearn => "relearn",
            Split::Check => "check",
        }
    }

    /// The seed the split's words are drawn from (different per split, so no word of the
    /// check split is chosen because it was learned from).
    pub fn seed(self) -> u64 {
        match self {
            Split::Learn => 0x1ea4_0001,
            Split::Relearn => 0x2e1e_0003,
            Split::Check => 0xc4ec_0002,
        }
    }
}

/// Path of a split's file for one table, relative to the oracle root:
/// `combos/learn/SM80-LD.tsv`.
pub fn split_file(split: Split, arch: Arch, mnemonic: &str) -> String {
    format!("{COMBOS_DIR}/{}/{arch}-{mnemonic}.tsv", split.name())
}

/// Which split an oracle file belongs to, from its path (`.../combos/check/...`); `None` for
/// every other recording (sweeps, cubins, arch inference).
pub fn split_of(path: &Path) -> Option<Split> {
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let i = comps.iter().position(|c| c == COMBOS_DIR)?;
    match comps.get(i + 1).map(String::as_str) {
        Some("learn") => Some(Split::Learn),
        Some("relearn") => Some(Split::Relearn),
        Some("check") => Some(Split::Check),
        _ => None,
    }
}

/// Folder under the oracle root with nvdisasm's answers for ptxas-made words (`scan`).
pub const CUBINS_DIR: &str = "cubins";

/// Whether an oracle file may be learned from: evidence files (see
/// [`crate::oracle::is_evidence_file`]) but the check split and the compiler's words, which
/// are what the reading is scored on.
pub fn is_learnable(path: &Path) -> bool {
    crate::oracle::is_evidence_file(path)
        && split_of(path) != Some(Split::Check)
        && !path.components().any(|c| c.as_os_str() == CUBINS_DIR)
}

/// Which figure an oracle file counts towards in `diff`: the check split per table
/// (`check SM80 LD`), the compiler's words per arch (`ptxas SM80`), or what is learned from
/// (`learned`).
pub fn figure_of(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if split_of(path) == Some(Split::Check) {
        return format!("check {}", stem.replacen('-', " ", 1));
    }
    if path.components().any(|c| c.as_os_str() == CUBINS_DIR) {
        return format!("ptxas {}", stem.to_uppercase());
    }
    "learned".into()
}

/// `n` distinct words of variant `v`: its fixed bits (`fixed_mask`/`fixed_value`, normally
/// the resolved layout's, whose opcode bits select the variant; for a variant read around the
/// legal word near a refused fixed word, [`super::flips::rebase_centre`], that word's) kept,
/// every other bit of the 128 random. Deterministic in (`seed`, the variant key). Fewer than
/// `n` only when the variant has fewer free bits than that.
pub fn random_words(v: &Variant, n: usize, seed: u64) -> Vec<u128> {
    let fixed_mask = v.fixed_mask;
    let mut rng = SplitMix64(seed ^ key_hash(&v.key));
    let mut out = std::collections::BTreeSet::new();
    let free = (!fixed_mask).count_ones();
    let cap = if free >= 64 { n } else { n.min(1usize << free) };
    let mut tries = 0usize;
    while out.len() < cap && tries < 20 * n + 100 {
        tries += 1;
        let r = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
        out.insert((v.fixed_value & fixed_mask) | (r & !fixed_mask));
    }
    out.into_iter().collect()
}

/// FNV-1a of a variant key (stable across runs and platforms).
fn key_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_read_from_the_path() {
        assert_eq!(
            split_of(Path::new("oracle/combos/check/SM80-LD.tsv")),
            Some(Split::Check)
        );
        assert_eq!(
            split_of(Path::new("oracle/combos/learn/SM90-TLD4.tsv")),
            Some(Split::Learn)
        );
        assert_eq!(split_of(Path::new("oracle/sm80/LD.tsv")), None);
        assert!(!is_learnable(Path::new("x/combos/check/SM100-TEX.tsv")));
        assert!(!is_learnable(Path::new("oracle/cubins/sm80.tsv")));
        assert!(!is_learnable(Path::new("oracle/arch-infer/SM80.tsv")));
        assert!(is_learnable(Path::new("oracle/sm80/LD.tsv")));
        assert!(is_learnable(Path::new("oracle/combos/learn/SM80-LD.tsv")));
        assert!(is_learnable(Path::new(
            "oracle/combos/relearn/SM90-UBLKCP.tsv"
        )));
        assert_eq!(
            figure_of(Path::new("oracle/combos/relearn/SM90-UBLKCP.tsv")),
            "learned"
        );
        assert_eq!(
            figure_of(Path::new("oracle/combos/check/SM90-TLD4.tsv")),
            "check SM90 TLD4"
        );
        assert_eq!(figure_of(Path::new("oracle/cubins/sm80.tsv")), "ptxas SM80");
        assert_eq!(figure_of(Path::new("oracle/sm80/LD.tsv")), "learned");
        assert_eq!(
            split_file(Split::Learn, "sm_80".parse::<Arch>().unwrap(), "LD"),
            "combos/learn/SM80-LD.tsv"
        );
    }
}

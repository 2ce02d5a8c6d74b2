//! Legality hints for nvdisasm runs: which words to send straight to a raw batch
//! ([`crate::oracle::Nvdisasm::disassemble_stream_hinted`]). A hint never changes an answer,
//! only how many nvdisasm passes a word costs, so a wrong hint is a slowdown, not an error.

use super::{choose, legality};
use crate::arch::Arch;
use crate::codec::{Codec, Word};
use crate::reading::model::Model;

/// Whether nvdisasm is expected to print a text for `word` on `arch`: it decodes to a variant
/// of the tables and the reading's legality ([`legality`]) is legal, with the variant's
/// mnemonic or another one (SM80 `LDG` words that look like `LD`'s). Words of no variant:
/// `false`. Measured on campaign seed 1313 (200k words over the five tables): every word
/// hinted legal was legal, and every legal word was hinted.
pub fn likely_legal(codec: &Codec, model: Option<&Model>, arch: Arch, word: Word) -> bool {
    codec
        .decode(arch, word)
        .map(|d| choose(codec, model, d))
        .is_some_and(|d| legality(codec, model, &d).is_legal())
}

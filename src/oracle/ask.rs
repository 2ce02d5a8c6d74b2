//! One oracle interface: [`Ask`] answers `(arch, words) -> answers`, implemented by live
//! nvdisasm ([`Nvdisasm`]) and by recorded answers ([`Recorded`], a lookup over oracle/ files,
//! so code that asks nvdisasm — the campaign's minimiser — is tested offline).

use super::{Answer, Entry, Nvdisasm, OracleError, word_to_hex};
use crate::arch::Arch;
use std::collections::HashMap;

/// Something that says what nvdisasm does with words.
pub trait Ask {
    /// One answer per word of `words` (disassembled for `arch`), in input order.
    ///
    /// Errors: [`OracleError::Nvdisasm`] when nvdisasm fails, [`OracleError::Input`] when a
    /// recorded oracle has no answer for a word (naming it).
    fn ask(&self, arch: Arch, words: &[u128]) -> Result<Vec<Answer>, OracleError>;

    /// Like [`Ask::ask`], but `None` for a word this oracle cannot answer (a recorded oracle
    /// that lacks it) instead of an error. Live nvdisasm answers every word.
    fn ask_some(&self, arch: Arch, words: &[u128]) -> Result<Vec<Option<Answer>>, OracleError> {
        Ok(self.ask(arch, words)?.into_iter().map(Some).collect())
    }
}

impl Ask for Nvdisasm {
    fn ask(&self, arch: Arch, words: &[u128]) -> Result<Vec<Answer>, OracleError> {
        self.disassemble(arch, words, None)
    }
}

/// Recorded answers, looked up by (arch, word): the offline stand-in for nvdisasm.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    answers: HashMap<(Arch, u128), Answer>,
}

impl Recorded {
    /// A lookup over `entries` (a later entry for the same (arch, word) replaces an earlier).
    pub fn new<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Recorded {
        Recorded {
            answers: entries
                .into_iter()
                .map(|e| ((e.arch, e.word), e.answer.clone()))
                .collect(),
        }
    }

    /// Number of recorded (arch, word) answers.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The recorded answer for `word` on `arch`, if any.
    pub fn get(&self, arch: Arch, word: u128) -> Option<&Answer> {
        self.answers.get(&(arch, word))
    }
}

impl Ask for Recorded {
    fn ask(&self, arch: Arch, words: &[u128]) -> Result<Vec<Answer>, OracleError> {
        words
            .iter()
            .map(|&w| {
                self.get(arch, w)
                    .cloned()
                    .ok_or_else(|| OracleError::Input {
                        message: format!("{arch} word {}: no recorded answer", word_to_hex(w)),
                    })
            })
            .collect()
    }

    fn ask_some(&self, arch: Arch, words: &[u128]) -> Result<Vec<Option<Answer>>, OracleError> {
        Ok(words.iter().map(|&w| self.get(arch, w).cloned()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_answers_in_order_and_missing_word_named() {
        let arch: Arch = "SM90".parse().unwrap();
        let e = |w, t: &str| Entry {
            arch,
            word: w,
            answer: Answer::Text(t.into()),
        };
        let r = Recorded::new(&[e(1, "A ;"), e(2, "B ;")]);
        assert_eq!(
            r.ask(arch, &[2, 1]).unwrap(),
            vec![Answer::Text("B ;".into()), Answer::Text("A ;".into())]
        );
        let err = r.ask(arch, &[3]).unwrap_err().to_string();
        assert!(
            err.contains("SM90 word 00000000000000000000000000000003"),
            "{err}"
        );
        assert_eq!(
            r.ask_some(arch, &[3, 1]).unwrap(),
            vec![None, Some(Answer::Text("A ;".into()))]
        );
    }
}

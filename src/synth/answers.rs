//! nvdisasm's answers for synthesis: recorded answers first, live nvdisasm (any
//! [`Ask`]) for the words not recorded, kept in `<oracle>/synth/<ARCH>.tsv` (an oracle file
//! listed in the folder's MANIFEST.json, written through [`OracleWriter`]), so a rerun asks
//! nvdisasm only about what is missing.

use super::SynthError;
use crate::arch::Arch;
use crate::oracle::ask::Ask;
use crate::oracle::{Answer, Entry, OracleWriter, read_entries};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Recorded and live answers for one arch.
pub struct Answers<'a> {
    arch: Arch,
    known: HashMap<u128, Answer>,
    live: Option<&'a (dyn Ask + Sync)>,
    /// Words asked live since the last save.
    added: usize,
    /// Every word asked (recorded or live): what a run used, for a recording.
    used: HashSet<u128>,
}

impl<'a> Answers<'a> {
    /// Answers for `arch` from `recorded` (e.g. read from a file or a test's recording) and,
    /// for the rest, `live` (None: offline; a word not recorded is then an error).
    pub fn new(
        arch: Arch,
        recorded: impl IntoIterator<Item = Entry>,
        live: Option<&'a (dyn Ask + Sync)>,
    ) -> Answers<'a> {
        let known = recorded
            .into_iter()
            .filter(|e| e.arch == arch)
            .map(|e| (e.word, e.answer))
            .collect();
        Answers {
            arch,
            known,
            live,
            added: 0,
            used: HashSet::new(),
        }
    }

    /// The file that holds the synthesis answers of `arch` under the oracle folder `dir`:
    /// `dir/synth/<ARCH>.tsv`.
    pub fn file(dir: &Path, arch: Arch) -> PathBuf {
        dir.join(Self::rel(arch))
    }

    fn rel(arch: Arch) -> String {
        format!("synth/{arch}.tsv")
    }

    /// The recorded entries of `arch` in `dir` (none when the file does not exist).
    /// Errors: a malformed file ([`SynthError::Oracle`]).
    pub fn load(dir: &Path, arch: Arch) -> Result<Vec<Entry>, SynthError> {
        let f = Self::file(dir, arch);
        if !f.is_file() {
            return Ok(Vec::new());
        }
        Ok(read_entries(&f)?)
    }

    /// One answer per word of `words`, in order: recorded ones looked up, the others asked
    /// live in one batch. Errors: a word with no recorded answer and no live oracle
    /// ([`SynthError::Missing`], naming the word and arch); nvdisasm's failures.
    pub fn ask(&mut self, words: &[u128]) -> Result<Vec<Answer>, SynthError> {
        self.used.extend(words.iter().copied());
        let mut missing: Vec<u128> = words
            .iter()
            .copied()
            .filter(|w| !self.known.contains_key(w))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            let Some(live) = self.live else {
                return Err(SynthError::Missing {
                    arch: self.arch,
                    word: crate::oracle::word_to_hex(missing[0]),
                    count: missing.len(),
                });
            };
            let got = live.ask(self.arch, &missing)?;
            if got.len() != missing.len() {
                return Err(SynthError::Oracle(crate::oracle::OracleError::Nvdisasm {
                    arch: self.arch,
                    word: crate::oracle::word_to_hex(missing[0]),
                    message: format!("{} answers for {} words", got.len(), missing.len()),
                }));
            }
            self.added += missing.len();
            for (w, a) in missing.into_iter().zip(got) {
                self.known.insert(w, a);
            }
        }
        words
            .iter()
            .map(|w| {
                self.known
                    .get(w)
                    .cloned()
                    .ok_or_else(|| SynthError::Missing {
                        arch: self.arch,
                        word: crate::oracle::word_to_hex(*w),
                        count: 1,
                    })
            })
            .collect()
    }

    /// Writes every answer known for the arch into `dir/synth/<ARCH>.tsv` (through
    /// [`OracleWriter`]: staged, listed in MANIFEST.json, renamed in), when live answers were
    /// added since the last save. Returns how many were added.
    pub fn save(&mut self, dir: &Path, nvdisasm_version: &str) -> Result<usize, SynthError> {
        if self.added == 0 {
            return Ok(0);
        }
        let mut entries: Vec<Entry> = self
            .known
            .iter()
            .map(|(&word, answer)| Entry {
                arch: self.arch,
                word,
                answer: answer.clone(),
            })
            .collect();
        let mut w = OracleWriter::open(dir)?;
        w.stage_entries(
            &Self::rel(self.arch),
            self.arch,
            &mut entries,
            nvdisasm_version,
            &format!("sass-conform synth --arch {}", self.arch),
        )?;
        w.commit()?;
        let n = self.added;
        self.added = 0;
        Ok(n)
    }

    /// The answers of every word asked so far, sorted by word: a recording (tests/data) of
    /// exactly what a run used.
    pub fn used_entries(&self) -> Vec<Entry> {
        let mut words: Vec<u128> = self.used.iter().copied().collect();
        words.sort_unstable();
        words
            .into_iter()
            .filter_map(|word| {
                self.known.get(&word).map(|answer| Entry {
                    arch: self.arch,
                    word,
                    answer: answer.clone(),
                })
            })
            .collect()
    }

    /// How many distinct words were asked so far.
    pub fn used(&self) -> usize {
        self.used.len()
    }
}

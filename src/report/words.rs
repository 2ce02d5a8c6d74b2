//! Words held by fuzz inputs, and recording nvdisasm's answers for the ones the oracle lacks
//! (`sass-conform corpus record`, run by scripts/nightly on the inputs a campaign added).
//!
//! A `roundtrip` input gives its property-(a) word on its arch and the word property (b)
//! encodes; a `decode_render` input gives its first 16 bytes (little-endian) on every arch.
//! Only words a table's opcode claims are kept (a variant decodes them, or the verdict is not
//! `no-variant`): the others say nothing about the tables.

use super::{ReportError, io_err};
use crate::arch::Arch;
use crate::codec::{Codec, EncodeOptions, FuzzCase, Verdict, Word};
use crate::oracle::{self, Entry, Nvdisasm};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// The words one fuzz input holds (see the module notes).
pub fn input_words(codec: &Codec, target: &str, data: &[u8]) -> Vec<(Arch, u128)> {
    let mut out = Vec::new();
    match target {
        "roundtrip" => {
            if let Some(case) = FuzzCase::from_bytes(codec, data) {
                out.push((case.arch, case.word.0));
                let v = codec.variant(case.variant);
                let mut values = case.values().to_vec();
                values.resize(v.fields.len(), 0);
                for (val, f) in values.iter_mut().zip(&v.fields) {
                    *val &= crate::spec::bits_mask(f.width()) as u64;
                }
                let opts = EncodeOptions {
                    allow_invalid: true,
                };
                if let (Ok(w), Some(a)) = (
                    codec.encode(case.variant, &values, opts),
                    codec.table(case.variant).arch,
                ) {
                    out.push((a, w.0));
                }
            }
        }
        "decode_render" => {
            if let Some(b) = data.get(..16) {
                let w = u128::from_le_bytes(b.try_into().unwrap_or([0; 16]));
                out.extend(codec.archs().into_iter().map(|a| (a, w)));
            }
        }
        _ => {}
    }
    out.retain(|&(a, w)| {
        codec.decode(a, Word(w)).is_some() || codec.check(a, Word(w)) != Verdict::NoVariant
    });
    out
}

/// Words of every input file in `dirs` (recursively) that `known` lacks, sorted, at most
/// `max`.
pub fn new_words(
    codec: &Codec,
    target: &str,
    dirs: &[PathBuf],
    known: &HashSet<(Arch, u128)>,
    max: usize,
) -> Result<Vec<(Arch, u128)>, ReportError> {
    let mut files = Vec::new();
    for d in dirs {
        collect_files(d, &mut files)?;
    }
    let mut out = BTreeSet::new();
    for f in files {
        let data = std::fs::read(&f).map_err(io_err(&f))?;
        for w in input_words(codec, target, &data) {
            if !known.contains(&w) {
                out.insert(w);
            }
        }
    }
    Ok(out.into_iter().take(max).collect())
}

fn collect_files(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), ReportError> {
    if p.is_file() {
        out.push(p.to_path_buf());
        return Ok(());
    }
    if !p.is_dir() {
        return Ok(());
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(io_err(p))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    for e in v {
        collect_files(&e, out)?;
    }
    Ok(())
}

/// Every (arch, word) recorded under the oracle folders.
pub fn known_words(dirs: &[PathBuf]) -> Result<HashSet<(Arch, u128)>, ReportError> {
    let mut out = HashSet::new();
    for d in dirs {
        for (_, entries) in oracle::load_dir(d)? {
            out.extend(entries.into_iter().map(|e| (e.arch, e.word)));
        }
    }
    Ok(out)
}

/// Asks nvdisasm about `words` and writes `out/<arch>/<name>.tsv` per arch with
/// `out/MANIFEST.json` (adding to a file that exists). Returns the files written with their
/// entry and legal-entry counts.
pub fn record(
    nv: &Nvdisasm,
    words: &[(Arch, u128)],
    out: &Path,
    name: &str,
    command: &str,
) -> Result<Vec<(PathBuf, usize, usize)>, ReportError> {
    let mut archs: Vec<Arch> = words.iter().map(|w| w.0).collect();
    archs.sort();
    archs.dedup();
    let mut writer = oracle::OracleWriter::open(out)?;
    let mut written = Vec::new();
    for arch in archs {
        let ws: Vec<u128> = words.iter().filter(|w| w.0 == arch).map(|w| w.1).collect();
        let answers = nv.disassemble(arch, &ws, None)?;
        let mut entries: Vec<Entry> = ws
            .iter()
            .zip(answers)
            .map(|(&word, answer)| Entry { arch, word, answer })
            .collect();
        let rel = format!("{}/{name}.tsv", arch.to_string().to_lowercase());
        let path = writer.committed_path(&rel);
        if path.is_file() {
            entries.extend(oracle::read_entries(&path)?);
        }
        writer.stage_entries(&rel, arch, &mut entries, nv.version(), command)?;
        let legal = entries.iter().filter(|e| e.answer.is_legal()).count();
        written.push((path, entries.len(), legal));
    }
    if !written.is_empty() {
        writer.commit()?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec() -> Codec {
        Codec::new(crate::spec::bundled_tables().unwrap()).unwrap()
    }

    #[test]
    fn decode_render_inputs_give_claimed_words_only() {
        let c = codec();
        let tld: u128 = 0x00000000080000000000000000000f66;
        let ws = input_words(&c, "decode_render", &tld.to_le_bytes());
        // SM100 decodes it; on SM90 a table claims its opcode too (reserved-bit verdict).
        assert!(ws.contains(&(Arch(100), tld)), "{ws:?}");
        assert!(ws.iter().all(|&(a, w)| w == tld && a != Arch(80)), "{ws:?}");
        assert!(input_words(&c, "decode_render", &[0u8; 16]).is_empty());
        assert!(input_words(&c, "parse_table", b"TLD").is_empty());
    }

    #[test]
    fn roundtrip_seed_gives_its_fixed_word() {
        let c = codec();
        let id = c.find_key("TLD_P_R_R_R_R_UR_D_I", None).unwrap();
        let w = Word(c.variant(id).fixed_value);
        let ws = input_words(&c, "roundtrip", &FuzzCase::seed_bytes(&c, id, w));
        assert!(ws.contains(&(Arch(100), w.0)), "{ws:?}");
    }
}

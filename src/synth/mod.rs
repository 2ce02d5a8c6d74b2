//! `sass-conform synth`: tables written from nvdisasm, one per mnemonic, in dialect A
//! (issue 22, first cut).
//!
//! The pipeline (each step batches its words through one [`Answers`], so a rerun asks
//! nvdisasm only about words it has not recorded):
//! 1. the real words: every word of the cubins' `.text.<kernel>` sections
//!    ([`crate::conform::scan::read_cubin`]) and nvdisasm's text for each;
//! 2. seeds of variants: the words grouped by mnemonic and operand shape ([`text`]: the kinds of
//!    the operands' atoms, brackets and prefixes, e.g. `R,desc[UR][R+I]`);
//! 3. per seed, single-bit flips of a first base word (the seed's word with the fewest bits
//!    set outside the scheduling fields), then of up to `max_bases - 1` other real words that
//!    agree with it on the bits its flips call the form's (the most different first); each
//!    bit's role from all flips ([`probe`]); bits no real base shows are flipped once more on
//!    the first base with its non-fixed bits cleared (`cleared_bases`);
//! 4. **the variant rule**: a variant is the set of real words of one mnemonic and operand
//!    shape that agree on the fixed bits those flips find (refused with no constraint table
//!    named, another mnemonic, another shape). The words of a seed its first variant does not
//!    hold seed another variant, in rounds. Two variants of a mnemonic with the same fixed
//!    bits and values are one (the one with more real words keeps its shape). nvdisasm's
//!    opclass names (from the refusals' reasons) are kept as evidence, not as the rule: a
//!    word's opclass is only named when a flip is refused by a constraint table;
//! 5. layout ([`layout`]), modifier groups enumerated on the first base with every value
//!    (refused: `INVALIDn`, n the value; names: the modifiers a value prints that not every
//!    legal value prints), one-bit groups printing one token as flags;
//! 6. the fixed word (fixed bits, every other bit 0) asked; its text is the distilled line;
//! 7. one dialect A table per mnemonic ([`write`]).

pub mod answers;
pub mod groups;
pub mod layout;
pub mod probe;
pub mod text;
pub mod write;

pub use answers::Answers;
pub use layout::{Cell, Group, Layout, SchedLayout};

use crate::arch::Arch;
use crate::oracle::{Answer, OracleError, word_to_hex};
use probe::{Flip, Role};
use std::collections::BTreeMap;
use text::Parsed;

/// The one error type of synthesis.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// nvdisasm or an oracle file failed.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// A cubin could not be read.
    #[error(transparent)]
    Scan(#[from] crate::conform::scan::ScanError),
    /// Offline, a word has no recorded answer.
    #[error("{arch} word {word}: no recorded answer ({count} words missing; run with nvdisasm)")]
    Missing {
        /// The arch.
        arch: Arch,
        /// The first missing word, 32 hex digits.
        word: String,
        /// How many are missing.
        count: usize,
    },
    /// A written table does not parse with the project's parser (a bug here: the table is
    /// not written).
    #[error("{arch} {mnemonic}: the synthesised table does not parse: {message}")]
    Unparsable {
        /// The arch.
        arch: Arch,
        /// The mnemonic.
        mnemonic: String,
        /// The parser's message.
        message: String,
    },
    /// A mnemonic asked for (`--mnemonic`) that no word of the input disassembles as: the
    /// name is nvdisasm's, in capitals, and only words of the cubins (or word files) given
    /// are looked at.
    #[error(
        "{arch} {mnemonic}: no word of the input disassembles as {mnemonic} ({found} mnemonics found in it; names are nvdisasm's, in capitals)"
    )]
    NotFound {
        /// The arch.
        arch: Arch,
        /// The mnemonic asked for.
        mnemonic: String,
        /// How many mnemonics the input's words do disassemble as.
        found: usize,
    },
    /// Writing an output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// What to synthesise and how hard to look.
#[derive(Debug, Clone)]
pub struct Options {
    /// The arch.
    pub arch: Arch,
    /// Only these mnemonics (empty: every mnemonic found).
    pub mnemonics: Vec<String>,
    /// Only this shard's mnemonics (of those found and selected, sorted; see
    /// [`crate::shard::Shard`]).
    pub shard: crate::shard::Shard,
    /// Base words per variant (single-bit flips of each): at least 1.
    pub max_bases: usize,
    /// The widest modifier group enumerated (2^n words per group).
    pub max_group_bits: usize,
    /// Rounds of seeding (words a seed's first variant does not hold seed another).
    pub rounds: usize,
    /// Where the scheduling fields lie.
    pub sched: SchedLayout,
    /// The sources of the words (a cubin folder, a word list), named in each table's
    /// description line by the words of its variants; empty: no source named.
    pub sources: Vec<String>,
    /// Each word's source (an index into `sources`); words not here name none.
    pub word_source: std::collections::HashMap<u128, usize>,
}

impl Options {
    /// Defaults for `arch`: 4 bases, groups of up to 6 bits, 4 rounds, the bundled tables'
    /// scheduling layout.
    pub fn new(arch: Arch) -> Options {
        Options {
            arch,
            mnemonics: Vec::new(),
            shard: crate::shard::Shard::ALL,
            max_bases: 4,
            max_group_bits: 6,
            rounds: 4,
            sched: SchedLayout::from_bundled(arch),
            sources: Vec::new(),
            word_source: std::collections::HashMap::new(),
        }
    }
}

/// One synthesised variant, with its evidence.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The written variant (title, signature, distilled, key, layout).
    pub text: write::VariantText,
    /// The real words it holds.
    pub words: Vec<u128>,
    /// The base words flipped.
    pub bases: Vec<u128>,
    /// nvdisasm's text of the first base.
    pub base_text: String,
    /// The opclass most refusals of the first base's flips name, if any.
    pub opclass: Option<String>,
    /// The fixed word's answer is legal.
    pub fixed_legal: bool,
    /// What looked odd (a fixed word nvdisasm refuses, a scheduling bit that does more).
    pub notes: Vec<String>,
    /// Per bit 0..128: its role and each base's flip (the evidence of the layout).
    pub trace: Vec<(Role, Vec<Flip>)>,
}

/// One synthesised table: a mnemonic's variants and the dialect A text.
#[derive(Debug, Clone)]
pub struct Table {
    /// The arch.
    pub arch: Arch,
    /// The mnemonic.
    pub mnemonic: String,
    /// The variants in the order written.
    pub variants: Vec<Variant>,
    /// The table's text.
    pub text: String,
}

/// A seed: real words of one mnemonic and shape.
struct Seed {
    mnemonic: String,
    parsed: Parsed,
    words: Vec<u128>,
}

/// ` of A, B`: the sources (in `opts.sources` order) of the variants' words; empty when no
/// word has a known source.
fn sources_named(opts: &Options, vars: &[Variant]) -> String {
    let mut used: Vec<usize> = vars
        .iter()
        .flat_map(|v| &v.words)
        .filter_map(|w| opts.word_source.get(w).copied())
        .collect();
    used.sort_unstable();
    used.dedup();
    let names: Vec<&str> = used
        .iter()
        .filter_map(|&i| opts.sources.get(i).map(String::as_str))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" of {}", names.join(", "))
    }
}

/// Distinct words of every cubin under `paths` whose arch is `arch`, in first-seen order.
/// Errors: a file that is not a cubin ([`SynthError::Scan`]).
pub fn corpus_words(paths: &[std::path::PathBuf], arch: Arch) -> Result<Vec<u128>, SynthError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for p in crate::conform::scan::cubin_paths(paths)? {
        let c = crate::conform::scan::read_cubin(&p)?;
        if c.arch != arch {
            continue;
        }
        for k in &c.kernels {
            for &w in &k.words {
                if seen.insert(w) {
                    out.push(w);
                }
            }
        }
    }
    Ok(out)
}

/// The base mnemonic of a word's text (`IADD3` of `@P0 IADD3.X R0, ...`).
pub fn mnemonic_of(text: &str) -> Option<String> {
    text::parse(text).map(|p| p.mnemonic)
}

/// What [`synthesize`] made: the tables, and the mnemonics whose table the format cannot
/// hold (the written text does not parse: [`SynthError::Unparsable`], e.g. a field wider
/// than 64 bits), which are not written.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The tables, by mnemonic.
    pub tables: Vec<Table>,
    /// The mnemonics left out, each with why.
    pub skipped: Vec<SynthError>,
    /// Every mnemonic of the whole run (all shards), sorted: those found in the words and
    /// selected by [`Options::mnemonics`].
    pub run_mnemonics: Vec<String>,
}

/// Synthesises one table per mnemonic from `words` (real words of `opts.arch`).
///
/// Errors: nvdisasm's ([`SynthError::Oracle`]); offline, a word not recorded
/// ([`SynthError::Missing`]). A table that would not parse is left out and named in
/// [`Outcome::skipped`].
pub fn synthesize(
    words: &[u128],
    answers: &mut Answers,
    opts: &Options,
) -> Result<Outcome, SynthError> {
    let texts = answers.ask(words)?;
    let parsed: Vec<Option<text::Parsed>> = texts
        .iter()
        .map(|a| match a {
            Answer::Text(t) => text::parse(t),
            Answer::Illegal(_) => None,
        })
        .collect();
    let all: std::collections::BTreeSet<&str> = parsed
        .iter()
        .flatten()
        .map(|p| p.mnemonic.as_str())
        .collect();
    let run_mnemonics: Vec<String> = all
        .iter()
        .filter(|m| opts.mnemonics.is_empty() || opts.mnemonics.iter().any(|x| x == *m))
        .map(|m| m.to_string())
        .collect();
    let not_found = not_found(&all, opts);
    let mine: Vec<String> = opts.shard.select(run_mnemonics.clone(), |m| m.clone());
    let mut by_shape: BTreeMap<(String, String), Seed> = BTreeMap::new();
    for (&w, p) in words.iter().zip(&parsed) {
        let Some(p) = p else { continue };
        if !mine.contains(&p.mnemonic) {
            continue;
        }
        let key = (p.mnemonic.clone(), p.signature());
        by_shape
            .entry(key)
            .or_insert_with(|| Seed {
                mnemonic: p.mnemonic.clone(),
                parsed: p.clone(),
                words: Vec::new(),
            })
            .words
            .push(w);
    }
    let mut seeds: Vec<Seed> = by_shape.into_values().collect();
    let mut found: Vec<Variant> = Vec::new();
    for _ in 0..opts.rounds.max(1) {
        if seeds.is_empty() {
            break;
        }
        let (vars, rest) = round(&seeds, answers, opts)?;
        found.extend(vars);
        seeds = rest;
    }
    let mut out = assemble(found, answers, opts)?;
    out.run_mnemonics = run_mnemonics;
    out.skipped.extend(not_found);
    Ok(out)
}

/// The mnemonics of [`Options::mnemonics`] not among `all` (every mnemonic the input's words
/// disassemble as), each as a [`SynthError::NotFound`].
fn not_found(all: &std::collections::BTreeSet<&str>, opts: &Options) -> Vec<SynthError> {
    opts.mnemonics
        .iter()
        .filter(|m| !all.contains(m.as_str()))
        .map(|m| SynthError::NotFound {
            arch: opts.arch,
            mnemonic: m.clone(),
            found: all.len(),
        })
        .collect()
}

/// Popcount outside the scheduling fields.
fn weight(w: u128, smask: u128) -> u32 {
    (w & !smask).count_ones()
}

/// The 128 single-bit flips of `base`.
fn flips_of(base: u128) -> Vec<u128> {
    (0..128).map(|b| base ^ (1u128 << b)).collect()
}

/// One round: every seed's variant and the seeds of the words it does not hold.
fn round(
    seeds: &[Seed],
    answers: &mut Answers,
    opts: &Options,
) -> Result<(Vec<Variant>, Vec<Seed>), SynthError> {
    let smask = opts.sched.mask();
    // First bases: the word with the fewest bits set (ties: the smallest word).
    let base0: Vec<u128> = seeds
        .iter()
        .map(|s| {
            *s.words
                .iter()
                .min_by_key(|w| (weight(**w, smask), **w))
                .expect("a seed has words")
        })
        .collect();
    let mut batch = Vec::with_capacity(base0.len() * 129);
    for &b in &base0 {
        batch.push(b);
        batch.extend(flips_of(b));
    }
    let got = answers.ask(&batch)?;
    let mut flips0: Vec<Vec<Flip>> = Vec::new();
    let mut texts0: Vec<String> = Vec::new();
    let mut opclass0: Vec<Option<String>> = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        let at = i * 129;
        let base_text = got[at].text().to_string();
        let parsed = text::parse(&base_text).unwrap_or_else(|| s.parsed.clone());
        let answers_i = &got[at + 1..at + 129];
        flips0.push(
            answers_i
                .iter()
                .map(|a| probe::classify(&parsed, &base_text, a))
                .collect(),
        );
        opclass0.push(opclass_of(answers_i));
        texts0.push(base_text);
    }
    // Other bases: words agreeing with the first on its form bits, most different first.
    let mut others: Vec<Vec<u128>> = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        let form: u128 = flips0[i]
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_form())
            .fold(0u128, |m, (b, _)| m | (1u128 << b));
        let cands: Vec<u128> = s
            .words
            .iter()
            .copied()
            .filter(|&w| w != base0[i] && (w ^ base0[i]) & form == 0)
            .collect();
        others.push(pick_diverse(
            base0[i],
            &cands,
            opts.max_bases.saturating_sub(1),
            smask,
        ));
    }
    let mut batch = Vec::new();
    for o in &others {
        for &b in o {
            batch.push(b);
            batch.extend(flips_of(b));
        }
    }
    let got = answers.ask(&batch)?;
    let mut at = 0;
    let mut per_bases: Vec<Vec<Vec<Flip>>> = Vec::new();
    let mut bases_of: Vec<Vec<u128>> = Vec::new();
    let mut roles_of: Vec<Vec<Role>> = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        let mut per_base: Vec<Vec<Flip>> = vec![flips0[i].clone()];
        let mut bases = vec![base0[i]];
        for &b in &others[i] {
            let fl = flips_on(&got[at..at + 129], &s.mnemonic);
            at += 129;
            if !fl.is_empty() {
                per_base.push(fl);
                bases.push(b);
            }
        }
        roles_of.push(roles_from(&per_base, smask));
        per_bases.push(per_base);
        bases_of.push(bases);
    }
    cleared_bases(
        seeds,
        &base0,
        &mut roles_of,
        &mut per_bases,
        &mut bases_of,
        answers,
        smask,
    )?;
    let mut vars = Vec::new();
    let mut rest = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        let per_base = &per_bases[i];
        let bases = bases_of[i].clone();
        let roles = &roles_of[i];
        let fixed = fixed_bits(roles) & !smask;
        let (members, left): (Vec<u128>, Vec<u128>) =
            s.words.iter().partition(|&&w| (w ^ base0[i]) & fixed == 0);
        let mut notes = Vec::new();
        for b in (0..128).filter(|b| smask >> b & 1 == 1) {
            // Scheduling bits may index a constraint table (design.md section 2) or set an
            // operand's `.reuse`; anything else is worth a note.
            let odd: Vec<&Flip> = per_base
                .iter()
                .map(|f| &f[b])
                .filter(|f| !matches!(f, Flip::Nothing | Flip::Table | Flip::Decoration(..)))
                .collect();
            if let Some(f) = odd.first() {
                notes.push(format!(
                    "scheduling bit {b} ({}): a flip reads {f:?}",
                    sched_label(&opts.sched, b)
                ));
            }
        }
        let layout = layout::build(roles, base0[i], &members, &opts.sched, opts.max_group_bits);
        vars.push(Variant {
            text: write::VariantText {
                title: s.mnemonic.clone(),
                signature: s.parsed.signature(),
                distilled: String::new(),
                key: String::new(),
                layout,
            },
            words: members,
            bases,
            base_text: texts0[i].clone(),
            opclass: opclass0[i].clone(),
            fixed_legal: false,
            notes,
            trace: (0..128)
                .map(|b| {
                    (
                        roles[b].clone(),
                        per_base.iter().map(|f| f[b].clone()).collect(),
                    )
                })
                .collect(),
        });
        if !left.is_empty() {
            rest.push(Seed {
                mnemonic: s.mnemonic.clone(),
                parsed: s.parsed.clone(),
                words: left,
            });
        }
    }
    Ok((vars, rest))
}

/// The flips of one base from its answer and its 128 flips' answers (`got`: base first), or
/// nothing when the base is refused or prints another mnemonic.
fn flips_on(got: &[Answer], mnemonic: &str) -> Vec<Flip> {
    let bt = got[0].text().to_string();
    match (text::parse(&bt), got[0].is_legal()) {
        (Some(p), true) if p.mnemonic == mnemonic => got[1..129]
            .iter()
            .map(|a| probe::classify(&p, &bt, a))
            .collect(),
        _ => Vec::new(),
    }
}

/// Each bit's role from every base's flip of it ([`probe::role`]); a scheduling bit is fixed
/// only where every base's flip of it is another form.
fn roles_from(per_base: &[Vec<Flip>], smask: u128) -> Vec<Role> {
    (0..128)
        .map(|b| {
            let fl: Vec<Flip> = per_base.iter().map(|f| f[b].clone()).collect();
            if smask >> b & 1 == 1 {
                // A scheduling bit every base's form needs at its value (nvdisasm refuses
                // any other: a branch's read and write barriers) is a fixed bit; any
                // other scheduling bit is the scheduling field's.
                return if fl.iter().all(Flip::is_form) {
                    Role::Fixed
                } else {
                    Role::Nothing
                };
            }
            probe::role(&fl)
        })
        .collect()
}

/// The bits whose role is [`Role::Fixed`], as a mask.
fn fixed_bits(roles: &[Role]) -> u128 {
    roles
        .iter()
        .enumerate()
        .filter(|(_, r)| **r == Role::Fixed)
        .fold(0u128, |m, (b, _)| m | (1u128 << b))
}

/// Bits that do nothing on every real base may be hidden by the value of the others (a float
/// immediate whose real values are all NaN: its low mantissa bits print the same `-QNAN`).
/// Each variant with such bits gets one more base: its first base with every bit outside the
/// fixed bits and the scheduling fields cleared (its fixed word with the first base's
/// scheduling bits). Where that base prints the variant's mnemonic and operand shape, its
/// flip of a hidden bit gives the bit's role (operand, decoration or guard: SM80 HFMA2's
/// `.F32`/`.H0_H0` operand swizzles, SM80 STS's `.X4`/`.X8`); a flip it calls another form,
/// a modifier or nothing leaves the bit as it was. The other bits keep the roles
/// of the real bases.
fn cleared_bases(
    seeds: &[Seed],
    base0: &[u128],
    roles_of: &mut [Vec<Role>],
    per_bases: &mut [Vec<Vec<Flip>>],
    bases_of: &mut [Vec<u128>],
    answers: &mut Answers,
    smask: u128,
) -> Result<(), SynthError> {
    // (variant, cleared base, its hidden bits).
    let mut asked: Vec<(usize, u128, Vec<usize>)> = Vec::new();
    for (i, roles) in roles_of.iter().enumerate() {
        let keep = fixed_bits(roles) | smask;
        let hidden: Vec<usize> = (0..128)
            .filter(|&b| roles[b] == Role::Nothing && smask >> b & 1 == 0)
            .collect();
        let cleared = base0[i] & keep;
        if !hidden.is_empty() && !bases_of[i].contains(&cleared) {
            asked.push((i, cleared, hidden));
        }
    }
    // The cleared bases first: only those that print the variant's mnemonic and operand shape
    // are flipped, and only at their hidden bits (nvdisasm is slow on refused words, and the
    // flips of the other bits are refused or known).
    let words: Vec<u128> = asked.iter().map(|a| a.1).collect();
    let base_answers = answers.ask(&words)?;
    // (variant, cleared base, its hidden bits, its text parsed, its text).
    let shown: Vec<_> = asked
        .into_iter()
        .zip(&base_answers)
        .filter(|(_, a)| a.is_legal())
        .filter_map(|((i, w, hidden), a)| {
            let p = text::parse(a.text())?;
            (p.mnemonic == seeds[i].mnemonic && p.signature() == seeds[i].parsed.signature())
                .then(|| (i, w, hidden, p, a.text()))
        })
        .collect();
    let mut batch = Vec::new();
    for (_, w, hidden, _, _) in &shown {
        batch.push(*w);
        batch.extend(hidden.iter().map(|&b| w ^ (1u128 << b)));
    }
    let got = answers.ask(&batch)?;
    let mut at = 0;
    for (i, w, hidden, parsed, bt) in shown {
        // The flips of the other bits were not asked: they read as nothing.
        let mut fl = vec![Flip::Nothing; 128];
        for (k, &b) in hidden.iter().enumerate() {
            let f = probe::classify(&parsed, bt, &got[at + 1 + k]);
            // A modifier bit is left out: its group is enumerated on the first base, where
            // it prints nothing.
            if matches!(f, Flip::Guard | Flip::Operand(_) | Flip::Decoration(..)) {
                roles_of[i][b] = probe::role(std::slice::from_ref(&f));
            }
            fl[b] = f;
        }
        at += 1 + hidden.len();
        per_bases[i].push(fl);
        bases_of[i].push(w);
    }
    Ok(())
}

fn sched_label(s: &SchedLayout, bit: usize) -> String {
    s.fields
        .iter()
        .find(|(_, b)| b.contains(&(bit as u8)))
        .map(|(l, _)| l.clone())
        .unwrap_or_default()
}

/// The opclass named most often by refusals among `answers` (`Opclass 'x', ...`).
fn opclass_of(answers: &[Answer]) -> Option<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for a in answers {
        if let Answer::Illegal(r) = a
            && let Some(rest) = r.strip_prefix("Opclass '")
            && let Some(end) = rest.find('\'')
        {
            *count.entry(&rest[..end]).or_default() += 1;
        }
    }
    count
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(o, _)| o.to_string())
}

/// Up to `n` of `cands`, greedily the one farthest (Hamming, outside `smask`) from those
/// chosen so far (starting from `base`).
fn pick_diverse(base: u128, cands: &[u128], n: usize, smask: u128) -> Vec<u128> {
    let mut chosen = vec![base];
    let mut out = Vec::new();
    while out.len() < n {
        let best = cands
            .iter()
            .filter(|c| !chosen.contains(c))
            .max_by_key(|&&c| {
                let d = chosen
                    .iter()
                    .map(|&x| weight(x ^ c, smask))
                    .min()
                    .unwrap_or(0);
                (d, std::cmp::Reverse(c))
            });
        match best {
            Some(&c) => {
                chosen.push(c);
                out.push(c);
            }
            None => break,
        }
    }
    out
}

/// Merges variants with equal fixed bits, enumerates the groups, asks the fixed words, and
/// writes one table per mnemonic.
fn assemble(
    found: Vec<Variant>,
    answers: &mut Answers,
    opts: &Options,
) -> Result<Outcome, SynthError> {
    // Merge: same mnemonic, same fixed mask and value.
    let mut merged: Vec<Variant> = Vec::new();
    for v in found {
        let key = |x: &Variant| {
            let l = &x.text.layout;
            (x.text.title.clone(), l.fixed_mask(), l.fixed_word())
        };
        match merged.iter_mut().find(|m| key(m) == key(&v)) {
            Some(m) => {
                let mut words = std::mem::take(&mut m.words);
                words.extend(&v.words);
                if v.words.len() > words.len() - v.words.len() {
                    *m = v;
                }
                m.words = words;
            }
            None => merged.push(v),
        }
    }
    // Enumerate every group on the first base.
    let mut batch = Vec::new();
    for v in &merged {
        for g in &v.text.layout.groups {
            batch.extend(group_words(v.bases[0], &g.bits));
        }
        batch.push(v.text.layout.fixed_word());
    }
    let got = answers.ask(&batch)?;
    let mut at = 0;
    for v in merged.iter_mut() {
        let mut pieces: Vec<Vec<(Vec<u8>, Vec<Answer>)>> = Vec::new();
        for g in &v.text.layout.groups {
            let n = 1usize << g.bits.len();
            let run = &got[at..at + n];
            at += n;
            pieces.push(
                groups::pieces(g.bits.len(), run)
                    .into_iter()
                    .map(|(s, e)| (g.bits[s..e].to_vec(), groups::row(run, s, e)))
                    .collect(),
            );
        }
        let same_form = |a: &Answer| {
            text::parse(a.text()).is_some_and(|p| {
                a.is_legal() && p.mnemonic == v.text.title && p.signature() == v.text.signature
            })
        };
        let named: Vec<Vec<Group>> = pieces
            .iter()
            .map(|ps| {
                ps.iter()
                    .map(|(bits, row)| Group {
                        index: 0,
                        bits: bits.clone(),
                        names: group_names(row),
                        same_form: row.iter().map(same_form).collect(),
                    })
                    .collect()
            })
            .collect();
        layout::cut_groups(&mut v.text.layout, named);
        layout::single_values_to_fixed(&mut v.text.layout, v.bases[0]);
        layout::groups_to_flags(&mut v.text.layout);
        let fixed = &got[at];
        at += 1;
        // The mnemonic the fixed word prints, where it prints another instruction's: SM100
        // F2FP (ptxas 13.5 words) had a variant whose fixed word nvdisasm reads as
        // `PLOP3.LUT P0, P2, !P0, R0.SIGN, R0.SIGN, 0x70, 0x0`, written as its distilled line.
        let other_mnemonic = |t: &str| {
            text::parse(t)
                .map(|p| p.mnemonic)
                .filter(|m| *m != v.text.title)
        };
        match fixed {
            Answer::Text(t) if !t.is_empty() && other_mnemonic(t).is_none() => {
                v.fixed_legal = true;
                v.text.distilled = t.clone();
            }
            other => {
                v.notes.push(format!(
                    "fixed word {} {}: distilled is the first base's text",
                    word_to_hex(v.text.layout.fixed_word()),
                    match other {
                        Answer::Illegal(r) => format!("refused ({r})"),
                        Answer::Text(t) if t.is_empty() => "prints no text".to_string(),
                        Answer::Text(t) => format!(
                            "prints another instruction ({})",
                            other_mnemonic(t).unwrap_or_default()
                        ),
                    }
                ));
                v.text.distilled = v.base_text.clone();
            }
        }
    }
    // Tables per mnemonic.
    let mut by_mn: BTreeMap<String, Vec<Variant>> = BTreeMap::new();
    for v in merged {
        by_mn.entry(v.text.title.clone()).or_default().push(v);
    }
    let mut out = Outcome::default();
    for (mn, mut vars) in by_mn {
        vars.sort_by(|a, b| {
            b.words
                .len()
                .cmp(&a.words.len())
                .then(a.text.signature.cmp(&b.text.signature))
        });
        let mut keys: Vec<String> = Vec::new();
        for v in vars.iter_mut() {
            v.text.title = title_of(&mn, &v.text.distilled, &v.text.layout);
            let base = key_of(&mn, &v.text.signature);
            let mut key = base.clone();
            let mut n = 2;
            while keys.contains(&key) {
                key = format!("{base}_{n}");
                n += 1;
            }
            keys.push(key.clone());
            v.text.key = key;
            if v.text.signature.is_empty() {
                // The format needs a signature line: a variant printing no operand is written
                // with its mnemonic as a one-atom signature (a note says so).
                v.text.signature = mn.clone();
                v.notes
                    .push("no operand printed: the signature line holds the mnemonic".into());
            }
        }
        let texts: Vec<write::VariantText> = vars.iter().map(|v| v.text.clone()).collect();
        let n_words: usize = vars.iter().map(|v| v.words.len()).sum();
        let description = format!(
            "Synthesised by sass-conform synth from {}{} and nvdisasm's answers",
            crate::conform::rootcause::counted(n_words, "word"),
            sources_named(opts, &vars)
        );
        let text = write::table(&mn, &description, opts.arch, &texts);
        if let Err(e) = crate::spec::parse_table(&format!("{mn}.txt"), &text) {
            out.skipped.push(SynthError::Unparsable {
                arch: opts.arch,
                mnemonic: mn.clone(),
                message: e.to_string(),
            });
            continue;
        }
        out.tables.push(Table {
            arch: opts.arch,
            mnemonic: mn,
            variants: vars,
            text,
        });
    }
    Ok(out)
}

/// `base` with the group's bits set to each value 0..2^bits (value bit i at `bits[i]`).
pub fn group_words(base: u128, bits: &[u8]) -> Vec<u128> {
    let clear = bits.iter().fold(base, |w, &b| w & !(1u128 << b));
    (0..1u64 << bits.len())
        .map(|v| {
            bits.iter()
                .enumerate()
                .filter(|(i, _)| v >> i & 1 == 1)
                .fold(clear, |w, (_, &b)| w | (1u128 << b))
        })
        .collect()
}

/// A name per value from the answers of a group's enumeration: `INVALIDn` for a refused value
/// (or one printing nothing), else the modifiers it prints that not every legal value prints,
/// joined by `.`, or `(default)` for none.
pub fn group_names(answers: &[Answer]) -> Vec<String> {
    let mods: Vec<Option<Vec<String>>> = answers
        .iter()
        .map(|a| match a {
            Answer::Text(t) => text::parse(t).map(|p| p.mods),
            Answer::Illegal(_) => None,
        })
        .collect();
    let legal: Vec<&Vec<String>> = mods.iter().flatten().collect();
    let common: Vec<&String> = legal
        .first()
        .map(|f| {
            f.iter()
                .filter(|m| legal.iter().all(|l| l.contains(m)))
                .collect()
        })
        .unwrap_or_default();
    mods.iter()
        .enumerate()
        .map(|(v, m)| match m {
            None => format!("INVALID{v}"),
            Some(m) => {
                let own: Vec<&str> = m
                    .iter()
                    .filter(|x| !common.contains(x))
                    .map(String::as_str)
                    .collect();
                if own.is_empty() {
                    "(default)".to_string()
                } else {
                    own.join(".")
                }
            }
        })
        .collect()
}

/// The title: the mnemonic and the distilled line's modifiers that no group or flag names.
fn title_of(mn: &str, distilled: &str, l: &Layout) -> String {
    let Some(p) = text::parse(distilled) else {
        return mn.to_string();
    };
    let named: Vec<&str> = l
        .groups
        .iter()
        .flat_map(|g| g.names.iter())
        .flat_map(|n| n.split('.'))
        .chain(l.labels.iter().map(String::as_str))
        .collect();
    let own: Vec<&str> = p
        .mods
        .iter()
        .map(String::as_str)
        .filter(|m| !named.contains(m))
        .collect();
    if own.is_empty() || p.mnemonic != mn {
        mn.to_string()
    } else {
        format!("{mn}.{}", own.join("."))
    }
}

/// `MN_` and the signature's atom kinds and bracket prefixes in order (`LDG_R_DESC_UR_R_I`).
fn key_of(mn: &str, sig: &str) -> String {
    let mut parts = vec![mn.to_string()];
    for tok in sig.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !tok.is_empty() {
            parts.push(tok.to_ascii_uppercase());
        }
    }
    parts.join("_")
}

//! Learned printers ([`Printer`]) worked out once per variant for bulk output
//! ([`super::Renderer::render_buf`]): each slot's runs of bits, its texts in an arena (a table
//! by key where the slot is narrow), its number rule's runs and affixes; printed straight into
//! a [`TextBuf`] with no allocation per word. Prints exactly what [`Printer::print_into`]
//! prints: the original printer is passed alongside and asked wherever a case is rare (a
//! float, a wide affix key, a guess, a printer with aliases); the renderer's tests compare both
//! on every bundled variant's swept words and on random words.

use super::{Piece, TextBuf, TextOut, Texts};
use crate::spec::printer::{Joined, Key, NumberRule, Printer, Slot, deposit, number_bytes, pext};
use std::sync::{Arc, Mutex};

/// Most runs of adjacent bits a [`Bits`] holds in place (more: [`pext`] by the mask).
const RUNS: usize = 4;

/// Widest key (bits) a slot's texts (or adjacent slots' together), or a number's affixes, are
/// tabled for by every value.
const DENSE: u32 = 8;

/// [`pext`] by one mask, its runs of adjacent bits worked out once and held in place.
#[derive(Debug, Clone, Copy)]
struct Bits {
    mask: u128,
    /// Number of runs (above [`RUNS`]: only `mask` is used).
    n: usize,
    /// Per run: (its lowest bit, its length as that many low bits set, where it goes).
    runs: [(u32, u128, u32); RUNS],
}

impl Bits {
    fn new(mask: u128) -> Bits {
        let mut runs = [(0, 0, 0); RUNS];
        let (mut n, mut m, mut at) = (0, mask, 0);
        while m != 0 {
            let lo = m.trailing_zeros();
            let len = (m >> lo).trailing_ones();
            let ones = u128::MAX >> (128 - len);
            if n < RUNS {
                runs[n] = (lo, ones, at);
            }
            n += 1;
            at += len;
            m &= !(ones << lo);
        }
        Bits { mask, n, runs }
    }

    /// The bits of `w` under the mask, packed low first (as [`pext`]).
    #[inline]
    fn of(&self, w: u128) -> u128 {
        match self.n {
            0 => 0,
            1 => w >> self.runs[0].0 & self.runs[0].1,
            n if n <= RUNS => self.runs[..n]
                .iter()
                .fold(0, |o, &(lo, ones, at)| o | (w >> lo & ones) << at),
            _ => pext(w, self.mask),
        }
    }
}

/// A [`Printer`] worked out for printing many words.
#[derive(Debug)]
pub(super) struct FastPrinter {
    /// Every text the printer prints as it is, back to back.
    texts: Texts,
    body: Body,
    /// The printer has aliases: printed by the printer itself.
    aliased: bool,
    /// Some text may hold two spaces in a row (else no squeeze is needed).
    may_double: bool,
}

/// The slots of a printer, or its form printers.
#[derive(Debug)]
struct Body {
    slots: Vec<FSlot>,
    /// The form bits (mask 0: none).
    form: Bits,
    /// Per entry of [`Printer::forms`], in its order.
    forms: Vec<Body>,
}

/// A slot worked out, or a run of slots printed as one.
#[derive(Debug)]
enum FSlot {
    /// The same text for every word.
    Fixed(Piece),
    /// Per key of the bits, the text (of one slot, or of adjacent slots together); shared by
    /// every printer with the same table ([`Tables`]).
    Table(Arc<Table>),
    /// Texts and a number by the key of the bits of slot `.0` (of the slots printed from).
    Keyed(usize, Box<Keyed>),
    /// Parts joined ([`Joined`]) of slot `.0`.
    Joined(usize, Box<FJoined>),
}

/// A slot's (or adjacent slots') text for every key of their bits.
#[derive(Debug)]
struct Table {
    key: Key8,
    /// Per key, its text in place, or [`Cell::LONG`].
    cells: Vec<Cell>,
    /// Per key, its text where longer than a cell holds, in [`Table::texts`] (empty when none
    /// is).
    long: Vec<Piece>,
    /// The texts of `long` (the table's own, so that printers can share the table).
    texts: Texts,
}

/// The tables ([`Table`]) the learned printers of one renderer have worked out, one per
/// (bits, texts): printers of many variants print the same slots (a register operand, a
/// modifier) from the same bits, and one copy of each table keeps the words' lookups in fewer
/// cache lines (SM90 TLD4: 101 tables of 16-byte cells, 288 KiB, of which 20 differ, 51 KiB).
/// A table of slots already seen is found by the slots, before their texts are printed.
#[derive(Debug, Default)]
pub(super) struct Tables(Mutex<Pool>);

/// The tables of [`Tables`], by what makes them the same.
#[derive(Debug, Default)]
struct Pool {
    /// By their bits and the text of every key of them.
    by_texts: rustc_hash::FxHashMap<(u128, Vec<String>), Arc<Table>>,
    /// By their bits and the slots printed from them (equal slots print equal texts).
    by_slots: Vec<(u128, Vec<Slot>, Arc<Table>)>,
}

/// A text of at most 15 bytes held in place (16 bytes, copied as one block).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct Cell {
    bytes: [u8; 15],
    /// The text's length, or [`Cell::LONG`].
    len: u8,
}

impl Cell {
    /// `len` of a text held in [`Table::long`].
    const LONG: u8 = u8::MAX;
}

/// A key of at most [`DENSE`] bits read from a word by 64-bit halves: per run of the mask (cut
/// at bit 64), (the half, the run's lowest bit in it, its length as that many low bits set,
/// where it goes).
#[derive(Debug, Clone, Copy)]
struct Key8 {
    n: usize,
    runs: [(usize, u32, u64, u32); KEY8_RUNS],
}

/// Most runs a [`Key8`] holds.
const KEY8_RUNS: usize = RUNS + 1;

impl Key8 {
    /// The runs of `mask` (`None` when more than [`KEY8_RUNS`] or wider than [`DENSE`]).
    fn new(mask: u128) -> Option<Key8> {
        if mask.count_ones() > DENSE {
            return None;
        }
        let mut runs = [(0, 0, 0, 0); KEY8_RUNS];
        let (mut n, mut at) = (0, 0);
        for half in 0..2 {
            let mut m = (mask >> (64 * half)) as u64;
            while m != 0 {
                let lo = m.trailing_zeros();
                let len = (m >> lo).trailing_ones();
                let ones = u64::MAX >> (64 - len);
                *runs.get_mut(n)? = (half, lo, ones, at);
                n += 1;
                at += len;
                m &= !(ones << lo);
            }
        }
        Some(Key8 { n, runs })
    }

    /// The bits of `w` under the mask, packed low first.
    #[inline]
    fn of(&self, w: u128) -> usize {
        let halves = [w as u64, (w >> 64) as u64];
        let mut key = 0;
        for &(half, lo, ones, at) in &self.runs[..self.n.min(KEY8_RUNS)] {
            key |= (halves[half & 1] >> lo & ones) << at;
        }
        key as usize
    }
}

impl Table {
    #[inline]
    fn print(&self, word: u128, out: &mut TextBuf) {
        let key = self.key.of(word);
        let Some(c) = self.cells.get(key) else {
            return;
        };
        if c.len != Cell::LONG {
            out.push_cell(&c.bytes, c.len);
        } else if let Some(&p) = self.long.get(key) {
            out.push_piece(&self.texts, p);
        }
    }
}

#[derive(Debug)]
struct Keyed {
    bits: Bits,
    /// [`Slot::texts`] as pieces, in its order.
    texts: Vec<(u128, Piece)>,
    number: Option<FNumber>,
    /// [`Slot::otherwise`], when the slot has no guess.
    otherwise: Option<Piece>,
}

#[derive(Debug)]
struct FJoined {
    parts: Vec<FSlot>,
    /// Per entry of [`Joined::alone`].
    alone: Vec<Option<FSlot>>,
}

/// A [`NumberRule`] worked out.
#[derive(Debug)]
struct FNumber {
    val: Bits,
    width: u32,
    /// The other bits of the slot, which key the affixes.
    other: Bits,
    /// With a key of at most [`DENSE`] bits: per key, per sign (not negative, negative), the
    /// affixes.
    affixes: Vec<[Option<(Piece, Piece)>; 2]>,
    /// [`NumberRule::names`] as pieces, in its order.
    names: Vec<(u128, Piece)>,
    /// The bits that pick another reading (mask 0: none), and per entry of
    /// [`NumberRule::alts`] that reading.
    alt: Bits,
    alts: Vec<(u128, FNumber)>,
}

impl FastPrinter {
    /// `p` worked out, its tables shared through `tables`.
    pub(super) fn new(p: &Printer, tables: &Tables) -> FastPrinter {
        let mut texts = Texts::default();
        let body = Body::new(p, &mut texts, tables);
        texts.finish();
        FastPrinter {
            texts,
            body,
            aliased: !p.aliases.is_empty(),
            may_double: !p.double_spaces && Shape::of_printer(p).double,
        }
    }

    /// Appends the text of `word` as `p.print_into` does (`p` is the printer this was built
    /// from).
    #[inline]
    pub(super) fn print(&self, p: &Printer, word: u128, out: &mut TextBuf) {
        if self.aliased {
            out.push_str(&p.print(word));
            return;
        }
        let start = out.len();
        self.body.print(p, word, &self.texts, out);
        if self.may_double {
            out.squeeze_spaces(start);
        }
    }
}

/// Whether what `s` prints depends on the bits of its mask alone (its number's, reading
/// picks' and parts' bits all in it): then it can be printed once for every key.
fn own_bits(s: &Slot) -> bool {
    fn number(n: &NumberRule, mask: u128) -> bool {
        n.mask & !mask == 0
            && n.alt_context & !mask == 0
            && n.alts.iter().all(|(_, a)| number(a, mask))
    }
    if let Some(j) = &s.joined {
        return j
            .parts
            .iter()
            .chain(j.alone.iter().flatten())
            .all(|p| p.mask & !s.mask == 0 && own_bits(p));
    }
    s.number.as_ref().is_none_or(|n| number(n, s.mask))
}

impl Body {
    fn new(p: &Printer, texts: &mut Texts, tables: &Tables) -> Body {
        // Adjacent slots that each print by their own bits are tabled together while their
        // bits together are at most `DENSE` wide in at most `KEY8_RUNS` runs.
        let mut slots = Vec::new();
        let mut group: (u128, Vec<&Slot>) = (0, Vec::new());
        for (i, s) in p.slots.iter().enumerate() {
            let both = group.0 | s.mask;
            let fits = Key8::new(both).is_some();
            if own_bits(s) && Key8::new(s.mask).is_some() {
                if !fits {
                    slots.extend(table(&group.1, group.0, texts, tables));
                    group = (0, Vec::new());
                }
                group.0 |= s.mask;
                group.1.push(s);
                continue;
            }
            slots.extend(table(&group.1, group.0, texts, tables));
            group = (0, Vec::new());
            slots.push(FSlot::new(i, s, texts, tables));
        }
        slots.extend(table(&group.1, group.0, texts, tables));
        Body {
            slots,
            form: Bits::new(p.form_mask),
            forms: p
                .forms
                .iter()
                .map(|(_, f)| Body::new(f, texts, tables))
                .collect(),
        }
    }

    /// `p`'s slots' texts of `word`, as `Printer::print_slots`.
    fn print(&self, p: &Printer, word: u128, texts: &Texts, out: &mut TextBuf) {
        if p.form_mask != 0 {
            let key = Key(self.form.of(word));
            let i = p.forms.binary_search_by_key(&key, |(k, _)| *k).unwrap_or(0);
            if let (Some((_, f)), Some(body)) = (p.forms.get(i), self.forms.get(i)) {
                body.print(f, word, texts, out);
            }
            return;
        }
        for s in &self.slots {
            match s {
                FSlot::Table(t) => t.print(word, out),
                FSlot::Fixed(piece) => out.push_piece(texts, *piece),
                _ => s.print_rare(&p.slots, word, texts, out),
            }
        }
    }
}

/// The slots `group` (each printing by its own bits, all within `mask`, at most [`DENSE`] bits
/// in at most [`KEY8_RUNS`] runs) printed one after another, for every key of `mask`; `None` for no
/// slot. A table is taken from `tables` when one with the same bits and texts is there.
fn table(group: &[&Slot], mask: u128, texts: &mut Texts, tables: &Tables) -> Option<FSlot> {
    if group.is_empty() {
        return None;
    }
    let lock = || tables.0.lock().unwrap_or_else(|e| e.into_inner());
    let same_slots = |(m, slots, _): &&(u128, Vec<Slot>, Arc<Table>)| {
        *m == mask && slots.len() == group.len() && slots.iter().zip(group).all(|(a, b)| a == *b)
    };
    if mask != 0
        && let Some((_, _, t)) = lock().by_slots.iter().find(same_slots)
    {
        return Some(FSlot::Table(Arc::clone(t)));
    }
    let mut text = String::new();
    let all: Vec<String> = (0..1u128 << mask.count_ones())
        .map(|key| {
            let word = deposit(key, mask);
            text.clear();
            for s in group {
                s.print_into(word, &mut text);
            }
            text.clone()
        })
        .collect();
    if mask == 0 {
        return Some(FSlot::Fixed(texts.add(&all[0], true)));
    }
    let mut pool = lock();
    let shared = Arc::clone(
        pool.by_texts
            .entry((mask, all))
            .or_insert_with_key(|(mask, all)| Arc::new(new_table(*mask, all))),
    );
    let slots = group.iter().map(|s| (*s).clone()).collect();
    pool.by_slots.push((mask, slots, Arc::clone(&shared)));
    Some(FSlot::Table(shared))
}

/// The table of the texts `all` of every key of `mask` (not 0).
fn new_table(mask: u128, all: &[String]) -> Table {
    let key = Key8::new(mask).expect("a table's bits fit a Key8");
    let cells = all
        .iter()
        .map(|t| {
            let mut c = Cell {
                bytes: [0; 15],
                len: Cell::LONG,
            };
            if let Some(b) = c.bytes.get_mut(..t.len()) {
                b.copy_from_slice(t.as_bytes());
                c.len = t.len() as u8;
            }
            c
        })
        .collect::<Vec<_>>();
    let mut texts = Texts::default();
    let long = match cells.iter().any(|c| c.len == Cell::LONG) {
        true => all.iter().map(|t| texts.add(t, true)).collect(),
        false => Vec::new(),
    };
    texts.finish();
    Table {
        key,
        cells,
        long,
        texts,
    }
}

impl FSlot {
    /// Slot `i` (of the slots printed from), `s`, worked out alone.
    fn new(i: usize, s: &Slot, texts: &mut Texts, tables: &Tables) -> FSlot {
        if own_bits(s) && Key8::new(s.mask).is_some() {
            return table(&[s], s.mask, texts, tables).expect("one slot");
        }
        if let Some(j) = &s.joined {
            return FSlot::Joined(
                i,
                Box::new(FJoined {
                    parts: j
                        .parts
                        .iter()
                        .enumerate()
                        .map(|(i, p)| FSlot::new(i, p, texts, tables))
                        .collect(),
                    alone: j
                        .alone
                        .iter()
                        .map(|a| a.as_ref().map(|a| FSlot::new(0, a, texts, tables)))
                        .collect(),
                }),
            );
        }
        FSlot::Keyed(
            i,
            Box::new(Keyed {
                bits: Bits::new(s.mask),
                number: s.number.as_ref().map(|n| FNumber::new(n, s.mask, texts)),
                texts: s
                    .texts
                    .iter()
                    .map(|(key, t)| (key.0, texts.add(t, true)))
                    .collect(),
                otherwise: match (&s.guess, &s.otherwise) {
                    (None, Some(t)) => Some(texts.add(t, true)),
                    _ => None,
                },
            }),
        )
    }

    /// [`FSlot::print`] out of line (a keyed or joined slot).
    #[inline(never)]
    fn print_rare(&self, slots: &[Slot], word: u128, texts: &Texts, out: &mut TextBuf) {
        self.print(slots, word, texts, out);
    }

    /// Appends the text of `word` as the slot(s) it was built from print it (`slots` holds
    /// the slot a keyed or joined one was built from, at its index).
    #[inline]
    fn print(&self, slots: &[Slot], word: u128, texts: &Texts, out: &mut TextBuf) {
        match self {
            FSlot::Fixed(p) => out.push_piece(texts, *p),
            FSlot::Table(t) => t.print(word, out),
            FSlot::Keyed(i, k) => {
                if let Some(orig) = slots.get(*i) {
                    k.print(orig, word, texts, out);
                }
            }
            FSlot::Joined(i, j) => {
                if let Some(Some(o)) = slots.get(*i).map(|s| &s.joined) {
                    j.print(o, word, texts, out);
                }
            }
        }
    }
}

impl Keyed {
    #[inline]
    fn print(&self, orig: &Slot, word: u128, texts: &Texts, out: &mut TextBuf) {
        let key = self.bits.of(word);
        if let Ok(i) = self.texts.binary_search_by_key(&key, |(k, _)| *k) {
            out.push_piece(texts, self.texts[i].1);
            return;
        }
        if let (Some(n), Some(o)) = (&self.number, &orig.number)
            && n.print(o, word, orig.mask, texts, out)
        {
            return;
        }
        match (&orig.guess, self.otherwise) {
            (Some(g), _) => out.push_str(g.text(key)),
            (None, Some(p)) => out.push_piece(texts, p),
            (None, None) => {}
        }
    }
}

impl FJoined {
    /// As [`Joined::print_into`].
    fn print(&self, orig: &Joined, word: u128, texts: &Texts, out: &mut TextBuf) {
        let start = out.len();
        let mut present = (0, 0);
        for (i, p) in self.parts.iter().enumerate() {
            let before = out.len();
            if before > start {
                out.push_str(&orig.sep);
            }
            let at = out.len();
            p.print(&orig.parts, word, texts, out);
            if out.len() == at {
                out.truncate(before);
            } else {
                present = (present.0 + 1, i);
            }
        }
        if present.0 == 1
            && let (Some(Some(alone)), Some(Some(o))) =
                (self.alone.get(present.1), orig.alone.get(present.1))
        {
            out.truncate(start);
            alone.print(std::slice::from_ref(o), word, texts, out);
        }
        if out.len() == start {
            out.push_str(&orig.empty);
        }
    }
}

impl FNumber {
    fn new(n: &NumberRule, slot_mask: u128, texts: &mut Texts) -> FNumber {
        let other_mask = slot_mask & !n.mask & !n.unread;
        let other = Bits::new(other_mask);
        let ow = other_mask.count_ones();
        let affixes = match ow <= DENSE && !n.float {
            true => (0..1u128 << ow)
                .map(|key| {
                    [false, true].map(|neg| {
                        n.affixes_of(Key(key), neg)
                            .map(|(pre, suf)| (texts.add(pre, true), texts.add(suf, true)))
                    })
                })
                .collect(),
            false => Vec::new(),
        };
        FNumber {
            val: Bits::new(n.mask),
            width: n.mask.count_ones(),
            other,
            affixes,
            names: n
                .names
                .iter()
                .map(|(k, t)| (k.0, texts.add(t, true)))
                .collect(),
            alt: Bits::new(n.alt_context),
            alts: n
                .alts
                .iter()
                .map(|(k, a)| (k.0, FNumber::new(a, slot_mask, texts)))
                .collect(),
        }
    }

    /// As `rule.print_into` (`rule` is the rule this was built from).
    fn print(
        &self,
        rule: &NumberRule,
        word: u128,
        slot_mask: u128,
        texts: &Texts,
        out: &mut TextBuf,
    ) -> bool {
        if rule.alt_context != 0 {
            let k = self.alt.of(word);
            if let Some(i) = self.alts.iter().position(|(a, _)| *a == k) {
                return self.alts[i]
                    .1
                    .print(&rule.alts[i].1, word, slot_mask, texts, out);
            }
        }
        if rule.float {
            let mut s = String::new();
            let printed = rule.print_into(word, slot_mask, &mut s);
            out.push_str(&s);
            return printed;
        }
        let v = self.val.of(word);
        // `NumberRule::value_of_bits` with the width worked out.
        let w = self.width;
        let n = if rule.signed && w > 0 && w < 128 && v >> (w - 1) & 1 == 1 {
            v as i128 - (1i128 << w)
        } else {
            v as i128
        };
        let n = n * rule.scale as i128 + rule.offset as i128;
        let neg = n < 0;
        let other = self.other.of(word);
        if !self.affixes.is_empty() {
            let Some((pre, suf)) = self.affixes[other as usize][usize::from(neg)] else {
                return false;
            };
            out.push_piece(texts, pre);
            self.push_value(v, n, rule.hex, texts, out);
            out.push_piece(texts, suf);
        } else {
            let Some((pre, suf)) = rule.affixes_of(Key(other), neg) else {
                return false;
            };
            out.push_str(pre);
            self.push_value(v, n, rule.hex, texts, out);
            out.push_str(suf);
        }
        true
    }

    /// The name of bits `v`, else the number `n`.
    #[inline]
    fn push_value(&self, v: u128, n: i128, hex: bool, texts: &Texts, out: &mut TextBuf) {
        if !self.names.is_empty()
            && let Ok(i) = self.names.binary_search_by_key(&v, |(k, _)| *k)
        {
            out.push_piece(texts, self.names[i].1);
            return;
        }
        let mut buf = [0u8; 48];
        out.push_bytes(number_bytes(n, hex, &mut buf));
    }
}

/// What a piece of text may look like, for telling whether a printer's text can ever hold two
/// spaces in a row: every text a slot may print is summed up, then the slots' in print order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Shape {
    /// It may be empty.
    empty: bool,
    /// It may start with a space.
    starts: bool,
    /// It may end with a space.
    ends: bool,
    /// It may hold two spaces in a row.
    double: bool,
}

impl Shape {
    /// The shape of one text.
    fn of(t: &str) -> Shape {
        Shape {
            empty: t.is_empty(),
            starts: t.starts_with(' '),
            ends: t.ends_with(' '),
            double: t.contains("  "),
        }
    }

    /// A number's digits: never empty, no space.
    const DIGITS: Shape = Shape {
        empty: false,
        starts: false,
        ends: false,
        double: false,
    };

    /// A text that may hold anything.
    const ANY: Shape = Shape {
        empty: true,
        starts: true,
        ends: true,
        double: true,
    };

    /// A text of either shape.
    fn or(self, o: Shape) -> Shape {
        Shape {
            empty: self.empty || o.empty,
            starts: self.starts || o.starts,
            ends: self.ends || o.ends,
            double: self.double || o.double,
        }
    }

    /// This text then `o`.
    fn then(self, o: Shape) -> Shape {
        Shape {
            empty: self.empty && o.empty,
            starts: self.starts || (self.empty && o.starts),
            ends: o.ends || (o.empty && self.ends),
            double: self.double || o.double || (self.ends && o.starts),
        }
    }

    /// Any of `texts` (none: the empty text).
    fn any<'a>(texts: impl IntoIterator<Item = &'a str>) -> Shape {
        let mut texts = texts.into_iter();
        let first = texts.next().map_or(Shape::of(""), Shape::of);
        texts.fold(first, |s, t| s.or(Shape::of(t)))
    }

    /// Every text `p` may print (its slots', or any form's).
    fn of_printer(p: &Printer) -> Shape {
        if p.form_mask != 0 {
            return p
                .forms
                .iter()
                .fold(Shape::of(""), |s, (_, f)| s.or(Shape::of_printer(f)));
        }
        p.slots
            .iter()
            .fold(Shape::of(""), |s, slot| s.then(Shape::of_slot(slot)))
    }

    /// Every text `s` may print.
    fn of_slot(s: &Slot) -> Shape {
        if let Some(j) = &s.joined {
            // One part, or parts joined by the separator, or the empty text.
            let part = j
                .parts
                .iter()
                .chain(j.alone.iter().flatten())
                .fold(Shape::of(""), |sh, p| sh.or(Shape::of_slot(p)));
            let sep = Shape::of(&j.sep);
            let mut joined = part;
            loop {
                let more = joined.or(joined.then(sep).then(part));
                if more == joined {
                    return joined.or(Shape::of(&j.empty));
                }
                joined = more;
            }
        }
        if s.mask == 0
            && let Ok(i) = s.texts.binary_search_by_key(&Key(0), |(k, _)| *k)
        {
            // Fixed text: key 0 always, listed.
            return Shape::of(&s.texts[i].1);
        }
        let texts = s.texts.iter().map(|(_, t)| t.as_str());
        // A key not listed: the number, else the guess's or the default text, else nothing.
        let fallback = match (&s.guess, &s.otherwise) {
            (Some(g), _) => Shape::any(g.texts.iter().map(String::as_str)),
            (None, Some(t)) => Shape::of(t),
            (None, None) => Shape::of(""),
        };
        let mut shape = fallback;
        if !s.texts.is_empty() {
            shape = shape.or(Shape::any(texts));
        }
        if let Some(n) = &s.number {
            shape = shape.or(Shape::of_number(n));
        }
        shape
    }

    /// Every text a number rule may print.
    fn of_number(n: &NumberRule) -> Shape {
        if n.float {
            return Shape::ANY;
        }
        let all = n.affixes.iter().chain(&n.nearby);
        let pre = Shape::any(all.clone().map(|(_, _, p, _)| p.as_str()))
            .or(Shape::any(n.unseen.iter().map(|(_, p, _)| p.as_str())));
        let suf = Shape::any(all.map(|(_, _, _, s)| s.as_str()))
            .or(Shape::any(n.unseen.iter().map(|(_, _, s)| s.as_str())));
        let mut value = Shape::DIGITS;
        if !n.names.is_empty() {
            value = value.or(Shape::any(n.names.iter().map(|(_, t)| t.as_str())));
        }
        n.alts.iter().fold(pre.then(value).then(suf), |s, (_, a)| {
            s.or(Shape::of_number(a))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::spec::printer::{Alias, FieldTest, Guess, ValueTest};

    /// Random words under `fixed` (mask, value) and `n` of them.
    fn words(fixed: (u128, u128), n: usize, seed: u64) -> Vec<u128> {
        let mut rng = crate::codec::SplitMix64(seed);
        (0..n)
            .map(|_| {
                let r = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
                r & !fixed.0 | fixed.1
            })
            .collect()
    }

    /// Asserts that `p` worked out (its tables shared through `tables`) prints every word of
    /// `words` as `p` does.
    fn check(p: &Printer, tables: &Tables, words: &[u128], what: &str) {
        let fast = FastPrinter::new(p, tables);
        let mut buf = TextBuf::new();
        for &w in words {
            buf.clear();
            buf.push_str("x\t");
            fast.print(p, w, &mut buf);
            let want = format!("x\t{}", p.print(w));
            assert_eq!(
                String::from_utf8_lossy(buf.as_bytes()),
                want,
                "{what} {w:#034x}"
            );
        }
    }

    #[test]
    fn bundled_printers_print_as_the_printer_does() {
        let tables = crate::spec::bundled_tables().unwrap();
        let mut checked = 0;
        for arch in crate::codec::Codec::new(tables.clone()).unwrap().archs() {
            let name = std::path::Path::new("resolved/tables.json");
            let Some(view) = crate::load::bundled_arch_view(arch, &tables, name).unwrap() else {
                continue;
            };
            // One pool for the arch, as a renderer shares its printers' tables.
            let shared = Tables::default();
            for t in &view.tables {
                for v in &t.variants {
                    let Some(p) = &v.printer else {
                        continue;
                    };
                    let mut ws: Vec<u128> = crate::codec::sweep_words(v, 64, 7)
                        .into_iter()
                        .map(|w| w.0)
                        .collect();
                    ws.extend(words((v.fixed_mask, v.fixed_value), 3000, 9));
                    ws.extend(words((0, 0), 200, 10));
                    check(p, &shared, &ws, &v.key);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 15, "{checked}");
    }

    /// A number rule of `mask` with `affixes` and nothing else.
    fn rule(mask: u128, hex: bool, affixes: &[(u128, bool, &str, &str)]) -> NumberRule {
        NumberRule {
            mask,
            signed: false,
            hex,
            scale: 1,
            offset: 0,
            float: false,
            double: false,
            half: false,
            affixes: affixes
                .iter()
                .map(|(k, n, p, s)| (Key(*k), *n, p.to_string(), s.to_string()))
                .collect(),
            unseen: Vec::new(),
            nearby_bits: Key(0),
            nearby: Vec::new(),
            apart: None,
            names: Vec::new(),
            special_affixes: Vec::new(),
            unread: 0,
            alt_context: 0,
            alts: Vec::new(),
        }
    }

    fn numbered(mask: u128, texts: &[(u128, &str)], n: NumberRule, otherwise: &str) -> Slot {
        let mut s = Slot::of_texts(mask, texts);
        s.number = Some(n);
        s.otherwise = Some(otherwise.to_string());
        s
    }

    /// Every kind of slot, wide and narrow (a guess, a signed scaled immediate with names and
    /// an unseen sign, affixes keyed by more than `DENSE` bits with nearby keys, another
    /// reading picked by a bit, a float meeting ` ;`, parts joined), forms, aliases and kept
    /// double spaces.
    #[test]
    fn every_kind_of_slot_prints_as_the_printer_does() {
        let guard = numbered(
            0xf000,
            &[(7, "")],
            rule(
                0x7000,
                false,
                &[(0, false, "@P", " "), (1, false, "@!P", " ")],
            ),
            "",
        );
        let mut guessed = Slot::of_texts(0x3ff << 20, &[(0, ".A"), (5, ".B")]);
        guessed.guess = Some(Box::new(Guess {
            tree: crate::reading::tree::Tree::Split {
                bit: 0,
                zero: Box::new(crate::reading::tree::Tree::Leaf {
                    class: 0,
                    support: 1,
                }),
                one: Box::new(crate::reading::tree::Tree::Leaf {
                    class: 1,
                    support: 1,
                }),
            },
            texts: vec![".G0".into(), ".G1".into()],
        }));
        let mut imm = rule(
            0xffff_ffff << 32,
            true,
            &[
                (0, false, " ", ""),
                (0, true, " -", ""),
                (1, false, " [", "]"),
            ],
        );
        imm.signed = true;
        imm.scale = 4;
        imm.offset = 0x10;
        imm.unseen = vec![(true, " ?".into(), String::new())];
        imm.names = vec![(Key(0x1234_5678), "NAMED".into())];
        let imm = numbered(0xffff_ffff << 32 | 3 << 100, &[(0, " ZERO")], imm, " ELSE");
        let mut wide = rule(
            0xffff << 64,
            false,
            &[(0, false, ", R", ""), (3, false, ", UR", "")],
        );
        wide.nearby_bits = Key(1);
        wide.nearby = vec![(Key(2), false, ", N".into(), String::new())];
        wide.unseen = vec![(false, ", X".into(), String::new())];
        let wide = numbered(0xffff << 64 | 0x3ff << 80, &[], wide, ", W");
        let mut picked = rule(
            0xff_ffff << 40,
            true,
            &[(0, false, " 0", ""), (1, false, " 1", "")],
        );
        picked.alt_context = 1 << 111;
        let mut alt = rule(
            0xffff << 40,
            false,
            &[(0x100, false, " +", ""), (0x1ff, true, " -", "")],
        );
        alt.signed = true;
        picked.alts = vec![(Key(1), alt)];
        let picked = numbered(0xff_ffff << 40 | 1 << 111, &[], picked, " P");
        let mut float = rule(
            0xffff_ffff,
            false,
            &[(0, false, " ", " "), (0, true, " ", " ")],
        );
        float.float = true;
        let float = numbered(0xffff_ffff, &[], float, " F");
        let reg = numbered(
            0xff << 8,
            &[(0xff, "")],
            rule(0xff << 8, false, &[(0, false, "R", "")]),
            "",
        );
        let mut off = rule(0xffff << 16, true, &[(0, false, "", "")]);
        off.signed = true;
        let off = numbered(0xffff << 16, &[(0, "")], off, "");
        let mut alone = numbered(
            0xffff << 16,
            &[],
            rule(0xffff << 16, true, &[(0, false, "", "")]),
            "",
        );
        alone.texts.clear();
        let mut joined = Slot::keyed(0xffffff << 8, Vec::new());
        joined.joined = Some(Box::new(Joined {
            sep: "+".into(),
            parts: vec![reg, off],
            empty: "RZ".into(),
            alone: vec![None, Some(alone)],
        }));
        let mut bracket = Slot::fixed(" [");
        bracket.mask = 0;
        let mods = |b: u32| Slot::of_texts(1 << b, &[(0, ""), (1, ".M")]);
        let printer = |slots: Vec<Slot>| Printer {
            slots,
            learned_permille: 1000,
            form_mask: 0,
            forms: Vec::new(),
            double_spaces: false,
            aliases: Vec::new(),
            spaced_ends: Vec::new(),
        };
        let all = printer(vec![
            guard,
            Slot::fixed("OP"),
            mods(120),
            mods(121),
            guessed,
            mods(122),
            Slot::fixed(" "),
            imm,
            wide,
            picked,
            float,
            bracket,
            joined,
            Slot::fixed("]"),
            Slot::fixed(" ;"),
        ]);
        let mut ws = words((0, 0), 20_000, 1);
        // Zeros and ones in the wide fields, QNaN and -0.0 floats, RZ and offset 0.
        ws.extend(words((0xffff_ffff << 32, 0), 500, 2));
        ws.extend(words((0xffff_ffff, 0x7fc0_0000), 500, 3));
        ws.extend(words((0xffff_ffff, 0x8000_0000), 500, 4));
        ws.extend(words((0xff_ffff << 8, 0xff << 8), 500, 5));
        ws.extend(words((0xffff << 16, 0), 500, 6));
        ws.extend(words((0x3ff << 80, 2 << 80), 500, 7));
        ws.extend(words((0x3ff << 80 | 1 << 111, 3 << 80 | 1 << 111), 500, 8));
        ws.extend(words((0xffff_ffff << 32, 0x1234_5678 << 32), 100, 9));
        check(&all, &Tables::default(), &ws, "all");
        // Each kind printed somewhere.
        let printed: String = ws.iter().map(|&w| all.print(w) + "\n").collect();
        for t in [
            "@P", "@!P", ".G0", ".G1", ".A ", "NAMED", " --0x", " ?", " [0x", ", R", ", UR", ", N",
            ", X", " P", " +", "+QNAN [", "-0.0 [", "[R", "+0x", "[RZ]", "[0x",
        ] {
            assert!(printed.contains(t), "{t}");
        }
        // Forms (the word's form not learned prints the first form), aliases, double spaces.
        let mut forms = printer(Vec::new());
        forms.form_mask = 3 << 125;
        forms.forms = vec![
            (Key(0), all.clone()),
            (
                Key(2),
                printer(vec![Slot::fixed("TWO  "), mods(3), Slot::fixed(" ;")]),
            ),
        ];
        check(&forms, &Tables::default(), &ws, "forms");
        let mut aliased = all.clone();
        aliased.aliases = vec![Alias {
            token: ".AL".into(),
            after: "OP".into(),
            rules: vec![vec![FieldTest {
                mask: 0xff00,
                test: ValueTest::PowerOfTwo,
            }]],
        }];
        check(&aliased, &Tables::default(), &ws, "aliases");
        let mut doubled = all.clone();
        doubled.double_spaces = true;
        doubled.slots.insert(1, Slot::fixed("  "));
        check(&doubled, &Tables::default(), &ws, "double spaces");
        assert!(
            !FastPrinter::new(
                &printer(vec![Slot::fixed("A "), mods(1), Slot::fixed("B")]),
                &Tables::default()
            )
            .may_double
        );
        assert!(FastPrinter::new(&all, &Tables::default()).may_double);
    }

    #[test]
    fn a_text_buffer_squeezes_spaces_as_the_printer_does() {
        for t in [
            "",
            " ",
            "  ",
            "a  b   c ;",
            "   x",
            "x   ",
            "é  ü ;",
            "no runs",
        ] {
            let mut buf = TextBuf::new();
            buf.push_str("\t  ");
            let from = buf.len();
            buf.push_str(t);
            buf.squeeze_spaces(from);
            let mut want = t.to_string();
            while want.contains("  ") {
                want = want.replace("  ", " ");
            }
            assert_eq!(
                String::from_utf8_lossy(buf.as_bytes()),
                format!("\t  {want}")
            );
        }
    }

    #[test]
    fn bits_pack_as_pext_does() {
        let mut rng = crate::codec::SplitMix64(5);
        let mut r = || (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
        for i in 0..2000 {
            let (w, a, b, c) = (r(), r(), r(), r());
            let m = match i % 6 {
                0 => a & b & c & (a >> 3),
                1 => 0xff << 40,
                2 => u128::MAX,
                3 => 1 << 127 | 1,
                4 => a & b,
                _ => a & b & c,
            };
            assert_eq!(Bits::new(m).of(w), pext(w, m), "{m:#x}");
        }
    }

    #[test]
    fn shapes_tell_where_two_spaces_may_meet() {
        let s = |t: &str| Shape::of(t);
        // `+QNAN ` then ` ;` meet; `R1` then ` ;` do not; an empty text between passes a
        // trailing space on.
        assert!(s("+QNAN ").then(s(" ;")).double);
        assert!(!s("R1").then(s(" ;")).double);
        assert!(s("P0 ").then(s("")).then(s(" ;")).double);
        assert!(!s("P0 ").then(s("R1")).then(s(" ;")).double);
        assert!(s("").or(s(" ")).then(s(" ")).double);
        assert!(s("a  b").double);
        assert!(!Shape::DIGITS.then(s(" ;")).double);
    }
}

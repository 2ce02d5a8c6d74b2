//! Render a decoded word as nvdisasm-syntax text: guard, mnemonic with modifiers, operands.
//!
//! Conventions checked against nvdisasm 13.5 on SM100 TLD words (oracle/): `@P0 ` guard, no
//! guard for PT, `@!PT` when negated; `RZ` for register 255; `URZ` for an all-ones uniform
//! register field; a destination predicate of PT is left out; immediates in lowercase hex
//! (`0x0`); texture dimensions `1D`, `2D`, `3D`, `ARRAY_1D`, ... by a 3-bit code; modifiers
//! joined with `.`; operands with `, `; the line ends ` ;`. The order in which modifiers print is
//! taken from the variant's distilled line where the table's fixed word shows it.

use crate::codec::{Codec, Decoded, VariantId, field_group};
use crate::spec::printer::Printer;
use crate::spec::{Field, FieldKind, GroupKind, ModifierName, OperandKind, SigOperand, Variant};

/// One piece of the mnemonic, in print order.
#[derive(Debug, Clone)]
enum ModSource {
    /// A fixed suffix of the title (`LOD` of `TMML.LOD`).
    Title(String),
    /// A modifier field (index into the variant's fields).
    Group(usize),
    /// A one-bit flag field printed as its label when set.
    Flag(usize),
}

/// How one atomic operand prints.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct AtomPlan {
    kind: OperandKind,
    /// The `operand N` field, if the layout has one.
    field: Option<usize>,
    /// The distilled line's text for this operand (fallback when there is no field).
    distilled: Option<String>,
    /// Whether this is the first written operand (a PT destination predicate is left out).
    first: bool,
    /// Dimension code of value 0 (index into [`DIMS`]).
    dim_base: usize,
    /// The field's printed-name overrides (resolved readings).
    names: std::collections::BTreeMap<u64, String>,
    /// The field's width when nvdisasm prints it as a signed number.
    signed_width: Option<u32>,
    /// The text of every value of the field, as `atom` writes it with no suffix (index into
    /// [`Renderer::atom_tables`]; fields up to [`TABLED_BITS`] wide whose names read no
    /// context bits).
    table: Option<usize>,
}

/// Fields up to this wide get the text of every value worked out when the plan is built.
const TABLED_BITS: u32 = 8;

/// One piece of the mnemonic, in print order, its text worked out once where it can be.
#[derive(Debug, Clone)]
enum ModPiece {
    /// Text printed whatever the values (`.LOD` of `TMML.LOD`).
    Fixed(Piece),
    /// A modifier or flag field: `texts[value]`, each with its leading `.` (or empty when the
    /// value prints nothing); worked out from `source` per word for values past `texts`
    /// (every value of a field wider than [`TABLED_BITS`]).
    Field {
        source: ModSource,
        field: usize,
        texts: Vec<Piece>,
    },
}

/// Per-variant rendering plan, built once.
#[derive(Debug, Clone)]
struct Plan {
    base: String,
    guard: Option<usize>,
    mods: Vec<ModPiece>,
    atoms: Vec<AtomPlan>,
    operand_modifier: Option<OperandModifier>,
    /// Fields whose names also read context bits (see [`crate::spec::Field::context`]).
    context: Vec<usize>,
    /// Whether some atom has a learned `desc[...]` name (SM80 LD bits 76 and 101).
    desc: bool,
    /// Word bits of the operand modifier field (`.64`/`.U32` on the base register), or 0.
    opmod_mask: u128,
    /// The variant's quiet scheduling control, (mask, value): see [`quiet_control`].
    quiet: Option<(u128, u128)>,
}

/// The `modi` field printed on the first atom of a memory operand (`[R0.U32+UR0]`).
#[derive(Debug, Clone)]
struct OperandModifier {
    field: usize,
    /// Per value: the suffix, `.U32` or empty (worked out per word past the end, as for
    /// [`ModPiece::Field`]).
    suffixes: Vec<String>,
}

impl OperandModifier {
    /// The suffix the word's modifier value prints (`.U32`, `.64` or empty): tabled per
    /// value, or worked out for a value past the table.
    fn suffix(&self, v: &Variant, vals: &[u64]) -> std::borrow::Cow<'_, str> {
        match self.suffixes.get(vals[self.field] as usize) {
            Some(t) => std::borrow::Cow::Borrowed(t),
            None => std::borrow::Cow::Owned(operand_suffix(v, self.field, vals[self.field])),
        }
    }
}

mod learned;

/// Texture dimension names by 3-bit code (SM100 TLD/TEX: bit 2 selects ARRAY).
pub const DIMS: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "CUBE",
    "ARRAY_1D",
    "ARRAY_2D",
    "ARRAY_3D",
    "ARRAY_CUBE",
];

/// Where rendered text goes: a `String` ([`Renderer::render_into`]) or a [`TextBuf`]
/// ([`Renderer::render_buf`], bulk output). The same calls write the same text to either.
pub trait TextOut {
    /// Appends `s`.
    fn push_str(&mut self, s: &str);
    /// Appends `c`.
    fn push(&mut self, c: char);
    /// Bytes written so far.
    fn len(&self) -> usize;
    /// Whether nothing is written.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Cuts the text back to its first `n` bytes (`n` at a character boundary).
    fn truncate(&mut self, n: usize);
    /// The text from byte `at` on.
    fn tail(&self, at: usize) -> &[u8];
    /// Moves the text from byte `at` on to byte `to`, dropping the bytes `cut..at` (`to <= cut
    /// <= at`, all at character boundaries).
    fn move_tail(&mut self, at: usize, cut: usize, to: usize);
    /// Appends a piece of the renderer's text arena.
    #[inline]
    fn push_piece(&mut self, texts: &Texts, p: Piece) {
        self.push_str(texts.get(p));
    }
}

impl TextOut for String {
    #[inline]
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    #[inline]
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
    #[inline]
    fn len(&self) -> usize {
        String::len(self)
    }
    #[inline]
    fn truncate(&mut self, n: usize) {
        String::truncate(self, n);
    }
    fn tail(&self, at: usize) -> &[u8] {
        &self.as_bytes()[at..]
    }
    fn move_tail(&mut self, at: usize, cut: usize, to: usize) {
        let moved = self.split_off(at);
        String::truncate(self, cut);
        self.insert_str(to, &moved);
    }
}

/// Bytes every [`Piece`] copy may read past the piece's end in the arena, and write past the
/// end of a [`TextBuf`]'s text: a piece this short is copied as one fixed-size block.
const PAD: usize = 32;

/// A text buffer for bulk output: text is appended in fixed-size copies into memory that is
/// kept initialized past the end of the text (no library copy call for a short piece, and no
/// UTF-8 check: only `&str` and `char` are ever appended, so the bytes are UTF-8).
#[derive(Debug, Default, Clone)]
pub struct TextBuf {
    /// Initialized memory; the text is `bytes[..len]`.
    bytes: Vec<u8>,
    len: usize,
}

impl TextBuf {
    /// An empty buffer.
    pub fn new() -> TextBuf {
        TextBuf::default()
    }

    /// The text written so far (UTF-8).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Makes room for `n` more bytes.
    pub fn reserve(&mut self, n: usize) {
        self.room(n + PAD);
    }

    #[inline]
    fn room(&mut self, n: usize) {
        if self.bytes.len() - self.len < n {
            self.grow(n);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        let want = (self.len + n + PAD).max(2 * self.bytes.len()).max(256);
        self.bytes.resize(want, 0);
    }

    /// Appends `n` bytes of `src` (`n <= PAD`), written as one block of `PAD` bytes.
    #[inline]
    fn push_block(&mut self, src: &[u8; PAD], n: usize) {
        self.room(PAD);
        let at = self.len;
        self.bytes[at..at + PAD].copy_from_slice(src);
        self.len = at + n.min(PAD);
    }

    /// Appends the first `n` bytes of `src` (`n` <= 15, UTF-8), written as one block of 16.
    #[inline]
    fn push_cell(&mut self, src: &[u8; 15], n: u8) {
        self.room(16);
        let at = self.len;
        self.bytes[at..at + 15].copy_from_slice(src);
        self.len = at + usize::from(n).min(15);
    }

    /// Appends UTF-8 bytes (a whole `&str`'s, or ASCII).
    #[inline]
    fn push_bytes(&mut self, s: &[u8]) {
        let n = s.len();
        self.room(n.max(PAD));
        let at = self.len;
        let d = &mut self.bytes[at..];
        // Short copies as two overlapping fixed-size ones.
        match n {
            0 => {}
            1..=3 => {
                d[0] = s[0];
                d[n / 2] = s[n / 2];
                d[n - 1] = s[n - 1];
            }
            4..=7 => {
                d[..4].copy_from_slice(&s[..4]);
                d[n - 4..n].copy_from_slice(&s[n - 4..]);
            }
            8..=16 => {
                d[..8].copy_from_slice(&s[..8]);
                d[n - 8..n].copy_from_slice(&s[n - 8..]);
            }
            17..=32 => {
                d[..16].copy_from_slice(&s[..16]);
                d[n - 16..n].copy_from_slice(&s[n - 16..]);
            }
            _ => d[..n].copy_from_slice(s),
        }
        self.len = at + n;
    }

    /// Makes every run of spaces from byte `from` on one space (as a learned printer prints
    /// its text, [`crate::spec::printer::Printer::print_into`]), in place.
    fn squeeze_spaces(&mut self, from: usize) {
        let from = from.min(self.len);
        let t = &mut self.bytes[from..self.len];
        let Some(first) = t.windows(2).position(|w| w == b"  ") else {
            return;
        };
        // Bytes up to the first space of the first pair stay; a space is one byte of UTF-8
        // and no other character's bytes hold it.
        let mut kept = first + 1;
        for i in first + 1..t.len() {
            let c = t[i];
            if !(c == b' ' && t[kept - 1] == b' ') {
                t[kept] = c;
                kept += 1;
            }
        }
        self.len = from + kept;
    }

    /// Appends ASCII bytes (32 hex digits of a word, say); other bytes are not appended.
    pub fn push_ascii(&mut self, s: &[u8]) {
        if s.is_ascii() {
            self.push_bytes(s);
        }
    }
}

impl TextOut for TextBuf {
    #[inline]
    fn push_str(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }
    #[inline]
    fn push(&mut self, c: char) {
        if c.is_ascii() {
            self.room(1);
            self.bytes[self.len] = c as u8;
            self.len += 1;
        } else {
            self.push_bytes(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n);
    }
    fn tail(&self, at: usize) -> &[u8] {
        &self.bytes[at.min(self.len)..self.len]
    }
    fn move_tail(&mut self, at: usize, cut: usize, to: usize) {
        let moved = self.tail(at).to_vec();
        self.len = cut.min(self.len);
        self.room(moved.len());
        self.bytes.copy_within(to..self.len, to + moved.len());
        self.bytes[to..to + moved.len()].copy_from_slice(&moved);
        self.len += moved.len();
    }
    #[inline]
    fn push_piece(&mut self, texts: &Texts, p: Piece) {
        let at = p.at as usize;
        match texts.block(at) {
            Some(block) if p.len as usize <= PAD => self.push_block(block, p.len as usize),
            _ => self.push_str(texts.get(p)),
        }
    }
}

/// A text worked out when the renderer is built: `len` bytes at `at` of the arena
/// ([`Texts`]), and whether an operand with this text is written at all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Piece {
    at: u32,
    len: u32,
    shown: bool,
}

impl Piece {
    /// The piece widened to the `n` bytes before it (`n` <= 2): `, t` (2) or ` t` (1) of a
    /// piece [`Texts::add_after_comma`] gave.
    #[inline]
    fn after(self, n: u32) -> Piece {
        Piece {
            at: self.at - n,
            len: self.len + n,
            shown: self.shown,
        }
    }
}

/// The renderer's texts, each stored once, back to back, with [`PAD`] bytes after the last.
#[derive(Debug, Default)]
pub struct Texts {
    text: String,
    seen: std::collections::HashMap<String, Piece>,
}

impl Texts {
    /// The piece holding `t` (added when new).
    fn add(&mut self, t: &str, shown: bool) -> Piece {
        let p = match self.seen.get(t) {
            Some(&p) => p,
            None => {
                let p = Piece {
                    at: self.text.len() as u32,
                    len: t.len() as u32,
                    shown: true,
                };
                self.text.push_str(t);
                self.seen.insert(t.to_string(), p);
                p
            }
        };
        Piece { shown, ..p }
    }

    /// The piece holding `t` (added when new) stored right after `, ` in the arena, so that
    /// [`Piece::after`] can widen it to `, t` or ` t` (what the renderer writes for a tabled
    /// operand after the one before it, or first).
    fn add_after_comma(&mut self, t: &str, shown: bool) -> Piece {
        let p = self.add(&format!(", {t}"), shown);
        Piece {
            at: p.at + 2,
            len: p.len - 2,
            shown,
        }
    }

    /// Pads the arena so that every piece can be read as one block.
    fn finish(&mut self) {
        self.text.extend(std::iter::repeat_n('\0', PAD));
        self.seen = Default::default();
    }

    /// The text of `p`.
    fn get(&self, p: Piece) -> &str {
        self.text
            .get(p.at as usize..p.at as usize + p.len as usize)
            .unwrap_or_default()
    }

    /// The [`PAD`] bytes from `at`.
    #[inline]
    fn block(&self, at: usize) -> Option<&[u8; PAD]> {
        self.text.as_bytes().get(at..at + PAD)?.try_into().ok()
    }
}

/// Renders decoded words of one [`Codec`]; plans are built once per variant.
#[derive(Debug)]
pub struct Renderer {
    plans: Vec<Vec<Plan>>,
    /// Every text worked out when the plans were built.
    texts: Texts,
    /// Per atom table: the text of each value (shared by atoms that print alike).
    atom_tables: Vec<Vec<Piece>>,
    /// The guard's text for each value of its 4 bits.
    guards: [Piece; 16],
    /// Per variant: its learned printer worked out for bulk output ([`Renderer::render_buf`]).
    printers: Vec<Vec<Learned>>,
    /// Words a variant's learned printer prints as it is before it is worked out: working it
    /// out prints each table key of its slots once, which a variant met a few times in a dump
    /// of many variants never pays back.
    fast_after: u32,
    /// The tables of the learned printers worked out, shared among them.
    fast_tables: learned::Tables,
}

/// A variant's learned printer worked out ([`learned::FastPrinter`]) once it has printed
/// [`Renderer::fast_after`] words.
#[derive(Debug, Default)]
struct Learned {
    printed: std::sync::atomic::AtomicU32,
    fast: std::sync::OnceLock<learned::FastPrinter>,
}

/// [`Renderer::fast_after`] of a new renderer.
const FAST_AFTER: u32 = 256;

impl Renderer {
    /// Builds a plan for every variant of `codec`.
    pub fn new(codec: &Codec) -> Renderer {
        let mut texts = Texts::default();
        // Atoms that print alike share one table, worked out once.
        let mut shared: rustc_hash::FxHashMap<(AtomPlan, u32, bool), Option<usize>> =
            Default::default();
        let mut atom_tables: Vec<Vec<Piece>> = Vec::new();
        let plans = codec
            .tables
            .iter()
            .map(|t| {
                t.variants
                    .iter()
                    .map(|v| {
                        let mut p = plan(v, &mut texts);
                        for a in &mut p.atoms {
                            let Some(key) = atom_key(v, a) else {
                                continue;
                            };
                            a.table = *shared.entry(key).or_insert_with(|| {
                                let all = atom_texts(v, a)?;
                                atom_tables.push(
                                    all.iter()
                                        .map(|(t, s)| texts.add_after_comma(t, *s))
                                        .collect(),
                                );
                                Some(atom_tables.len() - 1)
                            });
                        }
                        p
                    })
                    .collect()
            })
            .collect();
        let guards = std::array::from_fn(|g| {
            let mut s = String::new();
            guard(g as u64, &mut s);
            texts.add(&s, true)
        });
        texts.finish();
        let printers = codec
            .tables
            .iter()
            .map(|t| t.variants.iter().map(|_| Default::default()).collect())
            .collect();
        Renderer {
            plans,
            texts,
            atom_tables,
            guards,
            printers,
            fast_after: FAST_AFTER,
            fast_tables: Default::default(),
        }
    }

    /// Text of a decoded word, e.g. `@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;`.
    pub fn render(&self, codec: &Codec, d: &Decoded) -> String {
        let mut s = String::with_capacity(64);
        self.render_into(codec, d, &mut s);
        s
    }

    /// Appends the text of a decoded word to `out` (no allocation when `out` has room).
    pub fn render_into(&self, codec: &Codec, d: &Decoded, out: &mut String) {
        let v = codec.variant(d.id);
        match &v.printer {
            Some(printer) => {
                let start = out.len();
                printer.print_into(d.word.0, out);
                learned_semicolon(v, d.word.0, out, start);
            }
            None => self.render_to(codec, d, out),
        }
    }

    /// Appends the text of a decoded word to `out`, the same text as [`Renderer::render_into`]
    /// (the fast path of bulk output: `decode`).
    pub fn render_buf(&self, codec: &Codec, d: &Decoded, out: &mut TextBuf) {
        let v = codec.variant(d.id);
        match &v.printer {
            Some(printer) => {
                let fast = self
                    .printers
                    .get(d.id.table as usize)
                    .and_then(|t| t.get(d.id.variant as usize))
                    .and_then(|l| self.fast_printer(l, printer));
                let Some(fast) = fast else {
                    let mut text = printer.print(d.word.0);
                    learned_semicolon(v, d.word.0, &mut text, 0);
                    out.push_str(&text);
                    return;
                };
                let start = out.len();
                fast.print(printer, d.word.0, out);
                learned_semicolon_buf(v, printer, d.word.0, out, start);
            }
            None => self.render_to(codec, d, out),
        }
    }

    /// The worked-out printer `l` of `printer`, once it has been asked for [`FAST_AFTER`]
    /// times.
    #[inline]
    fn fast_printer<'a>(
        &self,
        l: &'a Learned,
        printer: &Printer,
    ) -> Option<&'a learned::FastPrinter> {
        use std::sync::atomic::Ordering::Relaxed;
        if let Some(f) = l.fast.get() {
            return Some(f);
        }
        if l.printed.fetch_add(1, Relaxed) < self.fast_after {
            return None;
        }
        Some(
            l.fast
                .get_or_init(|| learned::FastPrinter::new(printer, &self.fast_tables)),
        )
    }

    /// The text of a decoded word whose variant has no learned printer.
    #[inline]
    fn render_to<O: TextOut>(&self, codec: &Codec, d: &Decoded, out: &mut O) {
        let v = codec.variant(d.id);
        let p = &self.plans[d.id.table as usize][d.id.variant as usize];
        let mut keyed: [u64; crate::spec::MAX_FIELDS];
        let vals = if p.context.is_empty() {
            d.values()
        } else {
            keyed = d.values;
            key_values(p, v, d, &mut keyed);
            &keyed[..d.n_fields]
        };
        let texts = &self.texts;
        if let Some(g) = p.guard {
            match self.guards.get(vals[g] as usize) {
                Some(&t) => out.push_piece(texts, t),
                None => guard(vals[g], out),
            }
        }
        out.push_str(&p.base);
        for m in &p.mods {
            match m {
                ModPiece::Fixed(t) => out.push_piece(texts, *t),
                ModPiece::Field {
                    source,
                    field,
                    texts: values,
                } => match values.get(vals[*field] as usize) {
                    Some(&t) => out.push_piece(texts, t),
                    None => modifier(v, source, vals, out),
                },
            }
        }
        let mut first = true;
        for op in &v.signature.operands {
            if let SigOperand::Plain(i) = op
                && let Some(piece) = self.tabled(&p.atoms[*i], vals)
            {
                // `, ` or ` ` and the text in one piece; an operand not written writes nothing.
                if piece.shown {
                    out.push_piece(texts, piece.after(if first { 1 } else { 2 }));
                    first = false;
                }
                continue;
            }
            let start = out.len();
            out.push_str(if first { " " } else { ", " });
            let printed = match op {
                SigOperand::Plain(i) => self.plain_atom(&p.atoms[*i], vals, out),
                SigOperand::Memory(ids) => memory(p, v, ids, vals, out),
                // Constant-bank forms (`c[0x3][R2+0x10]`): bracket groups as written.
                SigOperand::Bracketed { prefix, groups } => {
                    out.push_str(prefix);
                    for g in groups {
                        out.push('[');
                        for (k, &i) in g.iter().enumerate() {
                            if k > 0 {
                                out.push('+');
                            }
                            self.plain_atom(&p.atoms[i], vals, out);
                        }
                        out.push(']');
                    }
                    true
                }
            };
            if printed {
                first = false;
            } else {
                out.truncate(start);
            }
        }
        // nvdisasm writes `;` right after the text when the control is quiet.
        match p.quiet {
            Some((mask, value)) if d.word.0 & mask == value => out.push(';'),
            _ => out.push_str(" ;"),
        }
    }

    /// An atom with no suffix: its table's text when it has one (as `atom` writes it).
    #[inline]
    fn plain_atom<O: TextOut + ?Sized>(&self, a: &AtomPlan, vals: &[u64], out: &mut O) -> bool {
        if let Some(piece) = self.tabled(a, vals) {
            out.push_piece(&self.texts, piece);
            return piece.shown;
        }
        atom(a, vals, None, out)
    }

    /// The text of an atom with no suffix from its table (`None` when it has none or its
    /// value is past it): what `atom` writes, and whether it writes the operand at all.
    #[inline]
    fn tabled(&self, a: &AtomPlan, vals: &[u64]) -> Option<Piece> {
        let (t, f) = (a.table?, a.field?);
        self.atom_tables.get(t)?.get(vals[f] as usize).copied()
    }

    /// Renders the word of `id` with the given field values.
    pub fn render_values(&self, codec: &Codec, id: VariantId, values: &[u64]) -> String {
        let mut d = codec
            .decode_as(id, crate::codec::Word(codec.variant(id).fixed_value))
            .expect("fixed word matches its own variant");
        d.values[..values.len()].copy_from_slice(values);
        self.render(codec, &d)
    }
}

/// Keys the values of `d`, copied into `keyed`, of the fields whose names read context bits
/// as the names are (see [`crate::spec::Field::name_key`]); written in place, not returned,
/// so that no copy of the array is made per word.
fn key_values(p: &Plan, v: &Variant, d: &Decoded, keyed: &mut [u64; crate::spec::MAX_FIELDS]) {
    for &i in &p.context {
        keyed[i] = v.fields[i].name_key(keyed[i], d.word.0);
    }
    if p.opmod_mask != 0 && base_left_out(p, v, &keyed[..d.n_fields]) {
        // The base register is not written, nor its operand modifier: a modifier
        // that reads the modifier's bits as context reads them as 0 (SM80 LD bit 90:
        // `LD.EF.U8 R0, [UR0]`, not `LD.???0.EF.U8`; campaign seed 11).
        let word = d.word.0 & !p.opmod_mask;
        for &i in &p.context {
            if v.fields[i]
                .context
                .iter()
                .any(|r| r.mask() & p.opmod_mask != 0)
            {
                keyed[i] = v.fields[i].name_key(d.values()[i], word);
            }
        }
    }
}

fn guard<O: TextOut + ?Sized>(v: u64, out: &mut O) {
    let (reg, neg) = (v & 7, v >> 3 & 1 == 1);
    match (reg, neg) {
        (7, false) => {}
        (7, true) => out.push_str("@!PT "),
        _ => {
            out.push_str(if neg { "@!P" } else { "@P" });
            push_decimal(out, reg);
            out.push(' ');
        }
    }
}

fn modifier<O: TextOut + ?Sized>(v: &Variant, m: &ModSource, vals: &[u64], out: &mut O) {
    match m {
        ModSource::Title(t) => {
            out.push('.');
            out.push_str(t);
        }
        ModSource::Flag(i) | ModSource::Group(i) if v.fields[*i].names.contains_key(&vals[*i]) => {
            let n = &v.fields[*i].names[&vals[*i]];
            if !n.is_empty() {
                out.push('.');
                out.push_str(n);
            }
        }
        ModSource::Flag(i) => {
            if vals[*i] != 0 {
                out.push('.');
                out.push_str(&v.fields[*i].label);
            }
        }
        ModSource::Group(i) => {
            let f = &v.fields[*i];
            let val = vals[*i];
            let Some(group) = field_group(v, f) else {
                return; // a `modi N` with no table: nothing to print
            };
            match group.lookup(val as u32).map(|r| &r.name) {
                Some(ModifierName::Default) => {}
                Some(ModifierName::Named(n)) => {
                    out.push('.');
                    out.push_str(n);
                }
                Some(ModifierName::Invalid(n)) => {
                    out.push_str(".INVALID");
                    push_decimal(out, *n as u64);
                }
                Some(ModifierName::Unknown(n)) => {
                    out.push_str(".???");
                    push_decimal(out, *n as u64);
                }
                None => {
                    out.push_str(".???");
                    push_decimal(out, val);
                }
            }
        }
    }
}

/// The modifier text field `fi` of `v` prints for `val`, tokens joined with `.` and no leading
/// dot ("" when it prints nothing), as [`Renderer`] prints it: the learned name, else the
/// modifier table's name (a flag field prints its label when set).
pub fn field_modifier_text(v: &Variant, fi: usize, val: u64) -> String {
    let m = match v.fields[fi].kind {
        FieldKind::Modifier(_) => ModSource::Group(fi),
        _ => ModSource::Flag(fi),
    };
    let mut vals = vec![0u64; v.fields.len()];
    vals[fi] = val;
    let mut s = String::new();
    modifier(v, &m, &vals, &mut s);
    s.strip_prefix('.').unwrap_or(&s).to_string()
}

/// Writes one atomic operand; returns false when nvdisasm leaves it out (PT destination).
fn atom<O: TextOut + ?Sized>(
    a: &AtomPlan,
    vals: &[u64],
    suffix: Option<&str>,
    out: &mut O,
) -> bool {
    let Some(fi) = a.field else {
        out.push_str(a.distilled.as_deref().unwrap_or("???"));
        return true;
    };
    let v = vals[fi];
    if let Some(name) = a.names.get(&v) {
        if name.is_empty() {
            return false;
        }
        out.push_str(name);
        if let Some(s) = suffix {
            out.push_str(s);
        }
        return true;
    }
    match &a.kind {
        OperandKind::Pred if v == 7 && a.first => return false,
        OperandKind::Pred if v == 7 => out.push_str("PT"),
        OperandKind::Pred => {
            out.push('P');
            push_decimal(out, v);
        }
        OperandKind::Reg if v == 255 => out.push_str("RZ"),
        OperandKind::Reg => {
            out.push('R');
            push_decimal(out, v);
        }
        OperandKind::UniformReg if v == 255 => out.push_str("URZ"),
        OperandKind::UniformReg => {
            out.push_str("UR");
            push_decimal(out, v);
        }
        OperandKind::Dim | OperandKind::ArrayDim | OperandKind::Snowflake => {
            let code = a.dim_base + v as usize;
            match DIMS.get(code) {
                Some(n) if code != 6 => out.push_str(n),
                _ => {
                    out.push_str("INVALID");
                    push_decimal(out, code as u64);
                }
            }
        }
        OperandKind::Imm | OperandKind::Other(_) => match a.signed_width {
            Some(w) if w < 64 && v >> (w - 1) & 1 == 1 => {
                out.push('-');
                push_hex(out, (1u64 << w) - v);
            }
            _ => push_hex(out, v),
        },
    }
    if let Some(s) = suffix {
        out.push_str(s);
    }
    true
}

/// Appends `v` in decimal (as `{v}` formats it). Up to three digits (every register number)
/// are pushed one by one: no copy call for a string of one to three bytes.
fn push_decimal<O: TextOut + ?Sized>(out: &mut O, v: u64) {
    let digit = |d: u64| char::from(b'0' + d as u8);
    match v {
        0..10 => out.push(digit(v)),
        10..100 => {
            out.push(digit(v / 10));
            out.push(digit(v % 10));
        }
        100..1000 => {
            out.push(digit(v / 100));
            out.push(digit(v / 10 % 10));
            out.push(digit(v % 10));
        }
        _ => {
            let mut digits = [0u8; 20];
            let (mut at, mut v) = (digits.len(), v);
            while v > 0 {
                at -= 1;
                digits[at] = b'0' + (v % 10) as u8;
                v /= 10;
            }
            out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
        }
    }
}

#[cfg(test)]
#[test]
fn decimals_print_as_format_does() {
    for v in [
        0,
        1,
        9,
        10,
        99,
        100,
        255,
        999,
        1000,
        4095,
        65_536,
        u64::MAX / 3,
        u64::MAX,
    ] {
        let mut s = String::from("R");
        push_decimal(&mut s, v);
        assert_eq!(s, format!("R{v}"));
    }
}

/// Appends `v` in lowercase hex with `0x` (as `{v:#x}` formats it).
fn push_hex<O: TextOut + ?Sized>(out: &mut O, v: u64) {
    out.push_str("0x");
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        let d = ((v >> (4 * i)) & 0xf) as u32;
        out.push(char::from_digit(d, 16).unwrap_or('?'));
    }
}

fn memory<O: TextOut + ?Sized>(
    p: &Plan,
    v: &Variant,
    ids: &[usize],
    vals: &[u64],
    out: &mut O,
) -> bool {
    let open = out.len();
    out.push('[');
    let mut printed = 0;
    // With a descriptor, nvdisasm writes the base register even at RZ, and the offset after it
    // signed (`desc[UR46][RZ.64+-0x6b075c]`; oracle/combos/learn/SM80-LD.tsv).
    let desc = p.desc
        && ids.iter().any(|&i| {
            let a = &p.atoms[i];
            a.field
                .and_then(|f| a.names.get(&vals[f]))
                .is_some_and(|n| n.starts_with("desc["))
        });
    let keep_base = desc || suffixed_base_alone(p, v, ids, vals);
    if keep_base {
        first_atom_plain(p, v, ids, vals, out);
        printed += 1;
    }
    for (k, &i) in ids.iter().enumerate() {
        if keep_base && k == 0 {
            continue;
        }
        let start = out.len();
        if printed > 0 {
            out.push('+');
        }
        let suffix = match &p.operand_modifier {
            Some(m) if k == 0 && ids.len() > 1 => Some(m.suffix(v, vals)),
            _ => None,
        };
        let a = &p.atoms[i];
        if printed == 0
            && a.signed_width.is_some()
            && k + 1 == ids.len()
            && let Some(fi) = a.field
            && !a.names.contains_key(&vals[fi])
        {
            // An offset alone in the brackets is an absolute address, printed unsigned
            // (SM80 LD `[0xa422eb98]`, not `[-0x5bdd1468]`; oracle/combos/check/SM80-LD.tsv).
            push_hex(out, vals[fi]);
            printed += 1;
            continue;
        }
        if atom(a, vals, suffix.as_deref(), out) {
            let at = start + usize::from(printed > 0);
            if out.tail(at).starts_with(b"desc[") {
                // A descriptor operand (SM80 LD bits 76 and 101, learned): nvdisasm writes it
                // before the brackets, `desc[UR4][R2.64+0x210]`.
                out.move_tail(at, start, open);
            } else {
                printed += 1;
            }
        } else {
            // Left out (a base register RZ, an offset 0): no `+` for it.
            out.truncate(start);
        }
    }
    if printed == 0 {
        first_atom_plain(p, v, ids, vals, out);
    }
    out.push(']');
    true
}

/// The learned names of field `f` that differ from what the plain rule prints for the key
/// (a resolved register field names every value `R0`..`RZ`; only the exceptions need a
/// lookup when rendering).
fn unplain_names(
    plan: &AtomPlan,
    f: usize,
    n_fields: usize,
    names: &std::collections::BTreeMap<u64, String>,
) -> std::collections::BTreeMap<u64, String> {
    let mut vals = vec![0u64; n_fields];
    let mut text = String::new();
    names
        .iter()
        .filter(|(k, name)| {
            vals[f] = **k;
            text.clear();
            !atom(plan, &vals, None, &mut text) || text != **name
        })
        .map(|(k, name)| (*k, name.clone()))
        .collect()
}

/// Whether the base register, learned as left out at this value (RZ), is written anyway: it
/// carries an operand modifier suffix (`.64`) and no uniform register is written after it
/// (SM80 LD with bit 76: `[RZ.64+0x1]`; with a uniform register `[UR0]`; campaign seed 11).
fn suffixed_base_alone(p: &Plan, v: &Variant, ids: &[usize], vals: &[u64]) -> bool {
    let (Some(&first), Some(m)) = (ids.first(), &p.operand_modifier) else {
        return false;
    };
    let a = &p.atoms[first];
    let left_out = a
        .field
        .and_then(|f| a.names.get(&vals[f]))
        .is_some_and(String::is_empty);
    let suffixed = !m.suffix(v, vals).is_empty();
    let ur_written = ids[1..].iter().any(|&i| {
        let b = &p.atoms[i];
        b.kind == OperandKind::UniformReg
            && b.field
                .is_some_and(|f| b.names.get(&vals[f]).is_none_or(|n| !n.is_empty()))
    });
    ids.len() > 1 && left_out && suffixed && !ur_written
}

/// Whether a memory operand's base register is left out while a uniform register is written
/// after it (`[UR0]`); `vals` keyed as the names are.
fn base_left_out(p: &Plan, v: &Variant, vals: &[u64]) -> bool {
    let name = |i: usize| {
        let a = &p.atoms[i];
        a.field.and_then(|f| a.names.get(&vals[f]))
    };
    v.signature.operands.iter().any(|op| match op {
        SigOperand::Memory(ids) if ids.len() > 1 => {
            name(ids[0]).is_some_and(String::is_empty)
                && ids[1..].iter().any(|&i| {
                    p.atoms[i].kind == OperandKind::UniformReg
                        && p.atoms[i].field.is_some()
                        && name(i).is_none_or(|n| !n.is_empty() && !n.starts_with("desc["))
                })
        }
        _ => false,
    })
}

/// nvdisasm never writes empty brackets: when every atom of a memory operand is left out it
/// writes the first one by the plain rule, with its operand modifier (SM80 LD `[RZ]`,
/// `desc[UR53][RZ.64]`; oracle/combos/check/SM80-LD.tsv).
fn first_atom_plain<O: TextOut + ?Sized>(
    p: &Plan,
    v: &Variant,
    ids: &[usize],
    vals: &[u64],
    out: &mut O,
) {
    let Some(a) = ids.first().map(|&i| &p.atoms[i]) else {
        return;
    };
    let Some(fi) = a.field else {
        return;
    };
    let plain = AtomPlan {
        names: std::collections::BTreeMap::new(),
        ..a.clone()
    };
    let mut raw = vals.to_vec();
    let w = v.fields[fi].width();
    if w < 64 {
        raw[fi] &= (1u64 << w) - 1;
    }
    let suffix = match &p.operand_modifier {
        Some(m) if ids.len() > 1 => m.suffix(v, vals),
        _ => std::borrow::Cow::Borrowed(""),
    };
    atom(&plain, &raw, Some(&suffix), out);
}

/// The suffix the operand modifier field `mi` prints for `value` (`.U32`, or empty).
fn operand_suffix(v: &Variant, mi: usize, value: u64) -> String {
    match field_group(v, &v.fields[mi])
        .and_then(|g| g.lookup(value as u32))
        .map(|r| &r.name)
    {
        Some(ModifierName::Named(n)) => format!(".{n}"),
        _ => String::new(),
    }
}

/// The texts of every value of field `i`, one per value (none when the field is wider than
/// [`TABLED_BITS`]).
fn value_texts(v: &Variant, i: usize, text: impl Fn(&[u64]) -> String) -> Vec<String> {
    let width = v.fields[i].width();
    if width > TABLED_BITS {
        return Vec::new();
    }
    let mut vals = vec![0u64; v.fields.len()];
    (0..1u64 << width)
        .map(|val| {
            vals[i] = val;
            text(&vals)
        })
        .collect()
}

/// What the texts of [`atom_texts`] depend on: the atom's plan but for its field's index,
/// and the field's width and context (`None` when the atom has no field).
fn atom_key(v: &Variant, a: &AtomPlan) -> Option<(AtomPlan, u32, bool)> {
    let f = a.field?;
    let plan = AtomPlan {
        field: Some(0),
        table: None,
        ..a.clone()
    };
    Some((plan, v.fields[f].width(), v.fields[f].context.is_empty()))
}

/// What `atom` writes, with no suffix, for every value of the atom's field, and whether it
/// writes the operand at all (`None` for an atom with no field, a field wider than
/// [`TABLED_BITS`], or one whose names read context bits).
fn atom_texts(v: &Variant, a: &AtomPlan) -> Option<Vec<(String, bool)>> {
    let f = a.field?;
    if !v.fields[f].context.is_empty() || v.fields[f].width() > TABLED_BITS {
        return None;
    }
    let mut vals = vec![0u64; v.fields.len()];
    let all = (0..1u64 << v.fields[f].width())
        .map(|val| {
            vals[f] = val;
            let mut s = String::new();
            let shown = atom(a, &vals, None, &mut s);
            (s, shown)
        })
        .collect();
    Some(all)
}

/// A modifier source with its texts worked out where the field is narrow enough.
fn mod_piece(v: &Variant, m: ModSource, pieces: &mut Texts) -> ModPiece {
    let (ModSource::Group(i) | ModSource::Flag(i)) = m else {
        let mut s = String::new();
        modifier(v, &m, &[], &mut s);
        return ModPiece::Fixed(pieces.add(&s, true));
    };
    if !v.fields[i].context.is_empty() {
        // Names keyed with context bits: worked out per word.
        return ModPiece::Field {
            source: m,
            field: i,
            texts: Vec::new(),
        };
    }
    let texts = value_texts(v, i, |vals| {
        let mut s = String::new();
        modifier(v, &m, vals, &mut s);
        s
    })
    .iter()
    .map(|t| pieces.add(t, true))
    .collect();
    ModPiece::Field {
        source: m,
        field: i,
        texts,
    }
}

/// A learned printer's text from `start` on, its end made what the quiet-word experiment
/// learned for `v` (`X;` or `X ;`, [`crate::reading::semicolon`]); unchanged where nothing
/// was learned or the text does not end with `;`. The printer learns from the combination
/// words, where a quiet control is one word in 2^16; the experiment asks it outright
/// (never-seen SM100 SYNCS and FCHK printed ` ;` for quiet words before). A text whose last
/// slot ends with a space of its own keeps it in a quiet word: nvdisasm writes SM90 FMUL's
/// `-0.0 ;` so (the printer's slots, unsqueezed, end `  ;`, or the last operand's shape is one
/// the printer learned keeps the space: [`Printer::keeps_space`]).
fn learned_semicolon(v: &Variant, word: u128, text: &mut String, start: usize) {
    let own_space = |w: u128, body: &[u8]| {
        v.printer
            .as_ref()
            .is_some_and(|p| p.keeps_space_at(w, body))
    };
    end_semicolon(v.semicolon, word, text, start, own_space);
}

/// `text[start..]` ended as `rule` says for `word` (`X;` in a quiet word, else `X ;`; see
/// [`learned_semicolon`], [`semicolon_ending`]). The learner scores a printer through this too
/// ([`crate::reading::printer`]), so that a printer and the table-shaped reading are weighed by
/// the text decode writes.
pub(crate) fn end_semicolon(
    rule: Option<crate::reading::semicolon::Semicolon>,
    word: u128,
    text: &mut String,
    start: usize,
    own_space: impl FnOnce(u128, &[u8]) -> bool,
) {
    if let Some((body, end)) = semicolon_ending(rule, word, &text.as_bytes()[start..], own_space) {
        text.truncate(start + body);
        text.push_str(end);
    }
}

/// [`learned_semicolon`] on the text of a [`TextBuf`] from `start` on (`printer` is `v`'s).
fn learned_semicolon_buf(
    v: &Variant,
    printer: &Printer,
    word: u128,
    out: &mut TextBuf,
    start: usize,
) {
    let own_space = |w: u128, body: &[u8]| printer.keeps_space_at(w, body);
    if let Some((body, end)) = semicolon_ending(v.semicolon, word, out.tail(start), own_space) {
        out.truncate(start + body);
        out.push_str(end);
    }
}

/// The end `rule` gives a printed text `tail` for `word`: (the length of the text before its
/// `;` or ` ;`, the end to put there: `;` in a quiet word, else ` ;`), or `None` with no rule,
/// no `;` at the end, or the end already right. `own_space(word, body)`, asked in a quiet word
/// only (`body`: the text before its `;`): whether the printer keeps a space before ` ;` there.
fn semicolon_ending(
    rule: Option<crate::reading::semicolon::Semicolon>,
    word: u128,
    tail: &[u8],
    own_space: impl FnOnce(u128, &[u8]) -> bool,
) -> Option<(usize, &'static str)> {
    let rule = rule?;
    let (body, spaced) = if tail.ends_with(b" ;") {
        (tail.len() - 2, true)
    } else if tail.ends_with(b";") {
        (tail.len() - 1, false)
    } else {
        return None;
    };
    let quiet = matches!(rule.quiet(), Some((mask, value)) if word & mask == value);
    let end = if quiet && !own_space(word, &tail[..body]) {
        ";"
    } else {
        " ;"
    };
    (spaced != (end == " ;")).then_some((body, end))
}

/// The word bits after which nvdisasm writes the `;` without a space before it, as (mask,
/// value) over the word: what the quiet-word experiment taught the resolved reading
/// ([`crate::reading::semicolon`]) where it was recorded, else the table's scheduling fields
/// in a quiet control ([`crate::reading::semicolon::table_rule`]: stall 0, yield 0, both
/// scoreboard barriers none, wait mask 0; measured with nvdisasm 13.5.37 flipping every bit
/// of SM80 LD `400fc1954bdca7905514feeb45230980`). `None`: always ` ;`.
fn quiet_control(v: &Variant) -> Option<(u128, u128)> {
    match v.semicolon {
        Some(s) => s.quiet(),
        None => crate::reading::semicolon::table_rule(v),
    }
}

/// Builds the plan of one variant from its fields, signature and distilled line. Modifiers
/// keep the distilled line's order; a 1-bit flag the line does not show goes after them in
/// layout order (the learned `print_order` replaces this order where nvdisasm was asked).
fn plan(v: &Variant, texts: &mut Texts) -> Plan {
    let (base, title_mods) = split_title(&v.title);
    let dist_mods = distilled_modifiers(&v.distilled);
    let dist_ops = distilled_operands(&v.distilled);
    let mut keyed: Vec<(f64, ModSource)> = Vec::new();
    for t in title_mods {
        let pos = find_seq(&dist_mods, &t).map_or(-1.0, |p| p as f64);
        keyed.push((pos, ModSource::Title(t)));
    }
    let mut last = -0.5;
    for (i, f) in v.fields.iter().enumerate() {
        match &f.kind {
            FieldKind::Modifier(_) => {
                let shown = zero_name(v, f).and_then(|n| find_seq(&dist_mods, &n));
                let pos = match shown {
                    Some(p) => p as f64,
                    None => last + 0.01,
                };
                last = pos;
                keyed.push((pos, ModSource::Group(i)));
            }
            FieldKind::Flag(_) if f.width() == 1 => {
                keyed.push((1000.0 + i as f64, ModSource::Flag(i)));
            }
            _ => {}
        }
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    if !v.print_order.is_empty() {
        keyed = ordered_sources(v);
    }
    let atoms: Vec<AtomPlan> = v
        .signature
        .atoms
        .iter()
        .enumerate()
        .map(|(n, k)| {
            let field = v
                .fields
                .iter()
                .position(|f| f.kind == FieldKind::Operand(n as u8));
            let distilled = dist_ops.get(n).cloned();
            // The distilled line shows the fixed word, where the field holds its fixed-word
            // value (0 in a table; the whole dimension code in a resolved variant).
            let at_fixed = field.map_or(0, |f| {
                crate::codec::Word(v.fixed_value).get_field(&v.fields[f]) as usize
            });
            let dim_base = distilled
                .as_deref()
                .and_then(|d| {
                    DIMS.iter()
                        .position(|x| *x == d)
                        .or_else(|| d.strip_prefix("INVALID")?.parse().ok())
                })
                .unwrap_or(if *k == OperandKind::ArrayDim { 4 } else { 0 })
                .saturating_sub(at_fixed);
            let mut plan = AtomPlan {
                kind: k.clone(),
                names: Default::default(),
                field,
                distilled,
                first: matches!(v.signature.operands.first(), Some(SigOperand::Plain(0))) && n == 0,
                dim_base,
                signed_width: field
                    .filter(|&f| v.fields[f].signed)
                    .map(|f| v.fields[f].width()),
                table: None,
            };
            if let Some(f) = field {
                plan.names = unplain_names(&plan, f, v.fields.len(), &v.fields[f].names);
            }
            plan
        })
        .collect();
    Plan {
        base,
        quiet: quiet_control(v),
        context: (0..v.fields.len())
            .filter(|&i| !v.fields[i].context.is_empty())
            .collect(),
        guard: v.fields.iter().position(|f| f.kind == FieldKind::Guard),
        mods: keyed
            .into_iter()
            .map(|(_, m)| mod_piece(v, m, texts))
            .collect(),
        opmod_mask: v
            .fields
            .iter()
            .find(|f| f.kind == FieldKind::OperandModifier)
            .map_or(0, |f| f.mask()),
        desc: atoms
            .iter()
            .any(|a| a.names.values().any(|n| n.starts_with("desc["))),
        atoms,
        operand_modifier: v
            .fields
            .iter()
            .position(|f| f.kind == FieldKind::OperandModifier)
            .map(|field| OperandModifier {
                field,
                suffixes: value_texts(v, field, |vals| operand_suffix(v, field, vals[field])),
            }),
    }
}

/// Modifier sources in the variant's resolved `print_order` (`=TOKEN` is a literal title
/// token; other entries are field labels).
fn ordered_sources(v: &Variant) -> Vec<(f64, ModSource)> {
    v.print_order
        .iter()
        .filter_map(|e| match e.strip_prefix('=') {
            Some(tok) => Some(ModSource::Title(tok.to_string())),
            None => {
                let i = v.fields.iter().position(|f| &f.label == e)?;
                Some(match v.fields[i].kind {
                    FieldKind::Modifier(_) => ModSource::Group(i),
                    _ => ModSource::Flag(i),
                })
            }
        })
        .map(|m| (0.0, m))
        .collect()
}

/// `TMML.LOD` -> ("TMML", ["LOD"]).
fn split_title(t: &str) -> (String, Vec<String>) {
    let mut parts = t.split('.');
    let base = parts.next().unwrap_or("").to_string();
    (base, parts.map(str::to_string).collect())
}

/// The printed name of a modifier field's value 0, if it prints anything.
fn zero_name(v: &Variant, f: &Field) -> Option<String> {
    let g = field_group(v, f)?;
    debug_assert!(g.kind == GroupKind::Mnemonic || g.kind == GroupKind::Operand);
    match &g.lookup(0)?.name {
        ModifierName::Named(n) => Some(n.clone()),
        ModifierName::Invalid(n) => Some(format!("INVALID{n}")),
        ModifierName::Unknown(n) => Some(format!("???{n}")),
        ModifierName::Default => None,
    }
}

/// The dot-separated modifiers of a distilled line's mnemonic (`@P0 TLD.LZ.EF ...` -> LZ, EF).
fn distilled_modifiers(d: &str) -> Vec<String> {
    let mut words = d.split_whitespace();
    let mut m = words.next().unwrap_or("");
    if m.starts_with('@') {
        m = words.next().unwrap_or("");
    }
    m.split('.').skip(1).map(str::to_string).collect()
}

/// The atomic operands of a distilled line, brackets flattened (`[R0+0x1]` -> R0, 0x1).
fn distilled_operands(d: &str) -> Vec<String> {
    let d = d.trim().trim_end_matches(';').trim();
    let mut words = d.splitn(3, ' ');
    let first = words.next().unwrap_or("");
    let rest = if first.starts_with('@') {
        words.nth(1).unwrap_or("")
    } else {
        words.next().unwrap_or("")
    };
    rest.split(',')
        .flat_map(|o| {
            let o = o.trim();
            match o.strip_prefix('[').and_then(|o| o.strip_suffix(']')) {
                Some(inner) => inner
                    .split('+')
                    .map(|a| a.split('.').next().unwrap_or(a).to_string())
                    .collect(),
                None => vec![o.to_string()],
            }
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Position of the dot-separated sequence `name` (e.g. `F16.RN`) in `mods`.
fn find_seq(mods: &[String], name: &str) -> Option<usize> {
    let parts: Vec<&str> = name.split('.').collect();
    (0..mods.len()).find(|&i| {
        i + parts.len() <= mods.len() && parts.iter().zip(&mods[i..]).all(|(a, b)| a == b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant's swept words print the same through the atom tables (each operand and
    /// its `, ` or ` ` in one piece, an operand left out writing nothing) as through `atom`,
    /// the general path, and the same into a `TextBuf` as into a `String`: the bundled tables
    /// and the bundled resolved view of each arch.
    #[test]
    fn tabled_operands_print_as_the_general_path_does() {
        let tables = crate::spec::bundled_tables().unwrap();
        let mut codecs = vec![Codec::new(tables.clone()).unwrap()];
        for arch in Codec::new(tables.clone()).unwrap().archs() {
            let name = std::path::Path::new("resolved/tables.json");
            if let Some(view) = crate::load::bundled_arch_view(arch, &tables, name).unwrap() {
                codecs.push(Codec::new(view.tables).unwrap());
            }
        }
        let mut checked = 0;
        for codec in &codecs {
            let mut r = Renderer::new(codec);
            // Every learned printer worked out from the first word.
            r.fast_after = 0;
            let mut general = Renderer::new(codec);
            general.atom_tables.clear();
            for id in codec.ids() {
                let v = codec.variant(id);
                let mut words = crate::codec::sweep_words(v, 64, 7);
                // The same words in a quiet control, where a learned `;` rule applies.
                if let Some((mask, value)) = v.semicolon.and_then(|s| s.quiet()) {
                    let quiet: Vec<_> = words
                        .iter()
                        .map(|w| crate::codec::Word(w.0 & !mask | value))
                        .collect();
                    words.extend(quiet);
                }
                for w in words {
                    let Some(d) = codec.decode_as(id, w) else {
                        continue;
                    };
                    let text = r.render(codec, &d);
                    assert_eq!(text, general.render(codec, &d), "{} {w}", v.key);
                    let mut buf = TextBuf::new();
                    r.render_buf(codec, &d, &mut buf);
                    assert_eq!(buf.as_bytes(), text.as_bytes(), "{} {w}", v.key);
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn a_learned_semicolon_ends_a_printers_text() {
        use crate::reading::semicolon::Semicolon;
        let text = include_str!("../specs/sm90/TMML.txt");
        let mut v = crate::spec::parse_table("TMML.txt", text).unwrap().variants[0].clone();
        let end = |v: &Variant, word: u128, t: &str| {
            let mut s = format!("kept {t}");
            learned_semicolon(v, word, &mut s, 5);
            s
        };
        // Nothing learned: the printer's text stands.
        assert_eq!(end(&v, 0, "X R0 ;"), "kept X R0 ;");
        let (mask, value) = (0b111 << 102, 0b010 << 102);
        v.semicolon = Some(Semicolon::Quiet { mask, value });
        assert_eq!(end(&v, value, "X R0 ;"), "kept X R0;");
        assert_eq!(end(&v, value | 1, "X R0;"), "kept X R0;");
        assert_eq!(end(&v, 0, "X R0;"), "kept X R0 ;");
        assert_eq!(end(&v, value, "X R0"), "kept X R0");
        v.semicolon = Some(Semicolon::Spaced);
        assert_eq!(end(&v, value, "X R0;"), "kept X R0 ;");
    }

    #[test]
    fn distilled_pieces() {
        assert_eq!(
            distilled_modifiers("@P0 TMML.???0.LOD R0, R0 ;"),
            vec!["???0", "LOD"]
        );
        assert_eq!(
            distilled_operands("@P0 LD.EF.U8 R0, [R0.U32+UR0+0x1], P6 ;"),
            vec!["R0", "R0", "UR0", "0x1", "P6"]
        );
        assert_eq!(
            find_seq(&["A".into(), "F16".into(), "RN".into()], "F16.RN"),
            Some(1)
        );
    }

    #[test]
    fn numbers_print_as_format_does() {
        for v in [
            0,
            1,
            9,
            10,
            99,
            100,
            254,
            255,
            0xabc,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut s = String::new();
            push_decimal(&mut s, v);
            assert_eq!(s, v.to_string());
            s.clear();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:#x}"));
        }
    }

    #[test]
    fn guards() {
        let mut s = String::new();
        guard(7, &mut s);
        assert_eq!(s, "");
        guard(15, &mut s);
        assert_eq!(s, "@!PT ");
        s.clear();
        guard(0b1010, &mut s);
        assert_eq!(s, "@!P2 ");
    }
}

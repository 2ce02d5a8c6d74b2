//! The table model: tables, variants, fields (bit ranges), modifier groups, operand kinds.

use crate::arch::Arch;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which of the two text formats a table file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dialect {
    /// File header (mnemonic, description, "N variants on SMxx"), `Binary<TAB>Value` group tables.
    A,
    /// No file header; title line with signature, register-slot line, `01 NAME.` group rows.
    B,
    /// nv_isa_solver's HTML page (`output/<MN>.html`): per variant a `div.spec` with a
    /// `data-inst-hex` fixed word, an `instviz` layout table whose cells span `colspan` bits,
    /// and `modi K modifiers` / `Operand N operand modifiers (modi K)` tables
    /// (read by [`crate::spec::html::parse_html`]). Line numbers are the page's lines.
    Html,
}

/// A contiguous run of bits inside the 128-bit word: bits `lo ..= lo + len - 1`.
///
/// Bit 0 is the least significant bit of the word (in the tables: absolute bit =
/// 64*half + 8*byte + label).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BitRange {
    /// Lowest bit number (0..=127).
    pub lo: u8,
    /// Number of bits (1..=64).
    pub len: u8,
}

impl BitRange {
    /// Highest bit number of the range.
    pub fn hi(&self) -> u8 {
        self.lo + self.len - 1
    }
    /// The range as a 128-bit mask.
    pub fn mask(&self) -> u128 {
        bits_mask(self.len as u32) << self.lo
    }
}

/// Most fields one variant may have (the seeds have at most 24).
pub const MAX_FIELDS: usize = 40;

/// A mask of the low `n` bits (n in 0..=128).
pub fn bits_mask(n: u32) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// Scheduling-control fields of the control bits (bits 105..=124 in every seed table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchedKind {
    /// `stall`: stall cycles.
    Stall,
    /// `y`: yield hint.
    Yield,
    /// `r-bar`: read scoreboard barrier index.
    ReadBarrier,
    /// `w-bar`: write scoreboard barrier index.
    WriteBarrier,
    /// `b-mask`: scoreboard wait mask.
    WaitMask,
    /// `reuse`: operand-reuse cache flags.
    Reuse,
}

/// What a layout label says a field is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldKind {
    /// `operand N`: the Nth atomic operand of the signature (0-based, brackets flattened).
    Operand(u8),
    /// `modi N`: modifier field looked up in `Modifier Group N`.
    Modifier(u8),
    /// `modi` (no number): operand modifier looked up in the variant's `Operand N Modifiers` table.
    OperandModifier,
    /// `pred` / `predicate`: the guard predicate (3-bit register, bit 3 = negate).
    Guard,
    /// Scheduling control (`stall`, `y`, `r-bar`, `w-bar`, `b-mask`, `reuse`).
    Sched(SchedKind),
    /// Any other label, e.g. `SCR`, `NODEP`, `DC`, `CL`, `E`, `cNOT`, `LZ`, `B`.
    Flag(String),
}

/// One field of a variant's layout: a label and the bit ranges under it, in table order.
///
/// A field's value is the concatenation of its ranges, the first range (lowest bits, as the
/// table is written low bit first) giving the least significant bits of the value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// The label as written in the table (`operand 3`, `modi 2`, `pred`, `SCR`, ...).
    pub label: String,
    /// What the label says the field is.
    pub kind: FieldKind,
    /// Bit ranges in ascending bit order; more than one when the label stands in several places.
    pub ranges: Vec<BitRange>,
    /// 1-based line of the layout row where the label first appears.
    pub line: usize,
    /// Printed text per value where nvdisasm prints the value otherwise than the default
    /// rules (resolved readings only; `""` = the operand is left out). Empty from the tables.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub names: std::collections::BTreeMap<u64, String>,
    /// Values nvdisasm rejects (the word is illegal) although the table allows them
    /// (resolved readings only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<u64>,
    /// nvdisasm prints the value as a two's-complement number of the field's width
    /// (`[R37+-0x55fc2796]`), where `names` has no entry (resolved readings only; learned
    /// from the texts of words with the top bit set).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub signed: bool,
    /// Bits of the word outside the field that also choose its printed name: `names` is then
    /// keyed by `value | context_value << width` (context ranges concatenated low first), e.g.
    /// SM80 LD's predicate operand (bits 64-66) with its complement bit 67, printed `!P3`.
    /// Resolved readings only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<BitRange>,
}

impl Field {
    /// The key of `names` for this field in `word`: the value, with the context bits above
    /// it (see [`Field::context`]).
    pub fn name_key(&self, value: u64, word: u128) -> u64 {
        let mut key = value;
        let mut shift = self.width();
        for r in &self.context {
            key |= ((word >> r.lo) as u64 & ((1u64 << r.len) - 1)) << shift;
            shift += r.len as u32;
        }
        key
    }

    /// Total width in bits (sum of the ranges).
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|r| r.len as u32).sum()
    }
    /// All bits of the field as a 128-bit mask.
    pub fn mask(&self) -> u128 {
        self.ranges.iter().fold(0, |m, r| m | r.mask())
    }
}

/// What a modifier value's name means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModifierName {
    /// `(default)` (dialect A) or an empty name (dialect B): prints nothing.
    Default,
    /// `INVALIDn`: a value the table marks invalid (nvdisasm may print `INVALIDn` or reject).
    Invalid(u32),
    /// `???n`: a value the table does not name.
    Unknown(u32),
    /// A printed modifier such as `AOFFI` or `CONSTANT.CTA` (dialect B's trailing dot removed).
    Named(String),
}

/// One row of a modifier table: binary value -> name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModifierValue {
    /// The value of the field that selects this row.
    pub value: u32,
    /// The name as the table gives it.
    pub name: ModifierName,
    /// 1-based line of the row.
    pub line: usize,
}

/// Which kind of modifier table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GroupKind {
    /// `Modifier Group N`: printed after the mnemonic (`TLD.LZ.EF`).
    Mnemonic,
    /// `Operand N Modifiers`: printed on an operand (`[R0.U32+UR0]`).
    Operand,
}

/// A modifier table of a variant.
///
/// Tables may list only some of their values (nv_isa_solver lists the values it saw, e.g.
/// LDC's `modi 2` table has `01 IL`, `10 IS`, `11 ISL` and no `00`): a value without a row is
/// simply unnamed ([`ModifierGroup::lookup`] gives `None`), never an error.
///
/// Titles and what they give:
/// - `Modifier Group K` (dialect A/B), `modi K modifiers` (HTML): `kind` Mnemonic, `index` K,
///   `field` None (a mnemonic table is read through `modi K`, K = `index`);
/// - `Operand N Modifiers` (dialect A; read through the unnumbered `modi` label):
///   `kind` Operand, `index` N, `field` None;
/// - `Operand N operand modifiers (modi K)` (HTML): `kind` Operand, `index` N,
///   `field` Some(K) (the `modi K` label's bits).
///
/// For both operand forms N is the atomic operand the names are printed on (the N of the
/// layout's `operand N` labels: LDS.html's `Operand 1 operand modifiers (modi 2)` gives
/// `.X4`/`.X8`/`.X16` on the `R` of `[R+UR]`, `operand 1`; SM80 LD's `Operand 1 Modifiers`
/// gives `.U32`/`.64` on the `R` of `[R+UR+I]`, atom 1): see [`ModifierGroup::operand`].
/// - `Modifier Group A + B` (dialect A) / `modi A + B modifiers`: a joint table: `kind`
///   Mnemonic, `index` A, `field` None, `joint` [A, B]; see [`ModifierGroup::joint`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModifierGroup {
    /// N of `Modifier Group N` / `Operand N Modifiers` (the first number of a joint title).
    pub index: u8,
    /// Which kind of table.
    pub kind: GroupKind,
    /// Width in bits of the binary column (the longest value written).
    pub width: u32,
    /// Rows in table order.
    pub values: Vec<ModifierValue>,
    /// 1-based line of the table's title.
    pub line: usize,
    /// The `modi K` layout label whose bits select a row of an operand-modifier table
    /// (HTML's `Operand N operand modifiers (modi K)`). None for mnemonic tables (their field
    /// is `modi <index>`), dialect A's `Operand N Modifiers` (read through the unnumbered
    /// `modi` label) and joint tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<u8>,
    /// A joint table over several `modi K` fields (`Modifier Group 1 + 2`: a pair of values
    /// names one token): the K of each field, in title order; empty for ordinary tables.
    /// A row's binary is the fields' values written one after the other in title order, so
    /// the first field gives the most significant bits: value = v(A) << width(B) | v(B).
    /// (Chosen from the written order; no real joint table was at hand to confirm it against
    /// nvdisasm, so readers should treat the order as the table's claim.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joint: Vec<u8>,
}

impl ModifierGroup {
    /// The atomic operand (the N of `operand N` labels) an operand-modifier table belongs to;
    /// None for mnemonic tables.
    pub fn operand(&self) -> Option<u8> {
        (self.kind == GroupKind::Operand).then_some(self.index)
    }
    /// Whether the table is read through the layout field `f` alone (not a joint table):
    /// `modi K` reads the table whose `field` is K (or, without one, the mnemonic table K);
    /// the unnumbered `modi` reads dialect A's `Operand N Modifiers`.
    pub fn reads_field(&self, f: &FieldKind) -> bool {
        if !self.joint.is_empty() {
            return false;
        }
        match (f, self.kind) {
            (FieldKind::Modifier(k), GroupKind::Mnemonic) => self.field.unwrap_or(self.index) == *k,
            (FieldKind::Modifier(k), GroupKind::Operand) => self.field == Some(*k),
            (FieldKind::OperandModifier, GroupKind::Operand) => self.field.is_none(),
            _ => false,
        }
    }
    /// The row for `value`, if the table has one.
    pub fn lookup(&self, value: u32) -> Option<&ModifierValue> {
        self.values.iter().find(|v| v.value == value)
    }
}

/// Read or write access of a register slot (dialect B's `WRITE R (2 slots)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Access {
    /// `READ`.
    Read,
    /// `WRITE`.
    Write,
}

/// One entry of dialect B's register-slot line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegSlot {
    /// Read or write.
    pub access: Access,
    /// Register file (`R`, `P`, `UR`).
    pub file: String,
    /// Number of consecutive registers.
    pub slots: u32,
}

/// Kind of one atomic operand of the signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OperandKind {
    /// `P`: predicate register (P0..P6, PT = 7).
    Pred,
    /// `R`: general register (R0..R254, RZ = 255).
    Reg,
    /// `UR`: uniform register (URZ = all ones of the field).
    UniformReg,
    /// `I` / `INT_IMM`: integer immediate.
    Imm,
    /// `D`: texture dimension (1D, 2D, 3D, CUBE).
    Dim,
    /// `ARRAY_D`: array texture dimension.
    ArrayDim,
    /// `SNOWFLAKE`: a dimension operand with an irregular value set.
    Snowflake,
    /// Anything else, kept verbatim: any operand name in capitals, digits and `_` that is
    /// none of the above, e.g. special registers (`SR`, `SR_TID`), `SM_SHADER_TYPE`,
    /// texture kinds, `UP`, `B`.
    Other(String),
}

impl OperandKind {
    /// The kind for a signature token such as `R`, `UR`, `INT_IMM`.
    pub fn from_token(t: &str) -> OperandKind {
        match t {
            "P" => OperandKind::Pred,
            "R" => OperandKind::Reg,
            "UR" => OperandKind::UniformReg,
            "I" | "INT_IMM" => OperandKind::Imm,
            "D" => OperandKind::Dim,
            "ARRAY_D" => OperandKind::ArrayDim,
            "SNOWFLAKE" => OperandKind::Snowflake,
            other => OperandKind::Other(other.to_string()),
        }
    }
}

/// One written operand of the signature: a plain operand or a bracketed address.
///
/// In general a written operand is optional prefix letters followed by one or more bracket
/// groups, each a `+`-joined list of atoms. `Plain` (no brackets) and `Memory` (no prefix,
/// one group) are the two degenerate cases the bundled tables use; everything else is
/// `Bracketed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SigOperand {
    /// One atomic operand; the value is its index among the atomic operands.
    Plain(usize),
    /// `[R+UR+I]`: the indices of its atomic operands, in order.
    Memory(Vec<usize>),
    /// A prefixed or multi-bracket operand: `c[I][I]` (constant bank: `prefix` "c", groups
    /// [[bank], [offset]]), `cx[UR][RI]` ("cx", [[UR], [R, I]]), `desc[UR][R+I]`.
    /// Inside a bracket, `RI` (register and immediate written as one token, as nv_isa_solver
    /// does) stands for two atoms, R then I: on LDC.html's `LDC_R_c[I][RI]` and
    /// `LDC_R_cx[UR][RI]` the layout has `operand 1` (the bank), `operand 2` (an 8-bit
    /// register field) and `operand 3` (the immediate).
    Bracketed {
        /// Letters before the first `[` (`c`, `cx`, `desc`); may be empty (`[R][I]`).
        prefix: String,
        /// Per bracket group, the indices of its atomic operands, in order.
        groups: Vec<Vec<usize>>,
    },
}

impl SigOperand {
    /// Every atom index of the operand, in written order.
    pub fn atoms(&self) -> Vec<usize> {
        match self {
            SigOperand::Plain(i) => vec![*i],
            SigOperand::Memory(ids) => ids.clone(),
            SigOperand::Bracketed { groups, .. } => groups.iter().flatten().copied().collect(),
        }
    }
}

/// A variant's operand signature (`P,R,R,R,R,UR,D,I` or `R,[R+UR+I],P`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// As written in the table.
    pub text: String,
    /// Atomic operands, brackets flattened: `operand N` labels index this list.
    pub atoms: Vec<OperandKind>,
    /// Written operands in order, referring to `atoms`.
    pub operands: Vec<SigOperand>,
}

/// One instruction variant: a title, a signature and a 128-bit layout.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Variant {
    /// `key:` line, e.g. `TLD_P_R_R_R_R_UR_D_I`.
    pub key: String,
    /// Title (`TLD`, `TMML.LOD`, `TEX.B`; the file mnemonic where the table gives none).
    pub title: String,
    /// Operand signature.
    pub signature: Signature,
    /// The `distilled:` disassembly line.
    pub distilled: String,
    /// Dialect B's register slots (empty in dialect A).
    pub slots: Vec<RegSlot>,
    /// Fields in table order (first appearance of each label).
    pub fields: Vec<Field>,
    /// Bits the table fixes to 0 or 1.
    #[serde(serialize_with = "hex128", deserialize_with = "unhex128")]
    pub fixed_mask: u128,
    /// Values of the fixed bits (zero outside `fixed_mask`).
    #[serde(serialize_with = "hex128", deserialize_with = "unhex128")]
    pub fixed_value: u128,
    /// Bits no cell describes (header gaps).
    #[serde(serialize_with = "hex128", deserialize_with = "unhex128")]
    pub undescribed: u128,
    /// Modifier tables (both kinds) in table order.
    pub groups: Vec<ModifierGroup>,
    /// 1-based line of the variant's first line.
    pub line: usize,
    /// 1-based lines of the four layout rows (header, cells, header, cells).
    pub layout_lines: [usize; 4],
    /// Labels of the modifier and flag fields in nvdisasm's print order (resolved readings
    /// only; empty from the tables, where the distilled line gives the order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub print_order: Vec<String>,
    /// nvdisasm's text for this variant's words, learned from its answers as slots of word
    /// bits ([`crate::spec::printer::Printer`]; resolved readings only). When present it is
    /// what `decode`, `diff` and every other command print.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printer: Option<crate::spec::printer::Printer>,
    /// Which bits make nvdisasm write `;` right after the text, learned from the quiet-word
    /// experiment ([`crate::reading::semicolon`]; resolved readings only). `None`: the
    /// table's scheduling fields decide ([`crate::reading::semicolon::table_rule`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semicolon: Option<crate::reading::semicolon::Semicolon>,
    /// Fixed bits whose lone flip nvdisasm reads as another instruction, learned from the
    /// sweeps ([`crate::reading::identity`]; resolved readings only, 0 elsewhere): a word
    /// that differs from the variant there is never called this variant with a reserved bit.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        serialize_with = "hex128",
        deserialize_with = "unhex128"
    )]
    pub identity: u128,
}

fn is_zero(x: &u128) -> bool {
    *x == 0
}

impl Variant {
    /// The modifier table the layout field `f` alone is looked up in (see
    /// [`ModifierGroup::reads_field`]); None for fields that are no modifier, for fields
    /// with no table, and for fields only a joint table names.
    pub fn field_group(&self, f: &Field) -> Option<&ModifierGroup> {
        self.groups.iter().find(|g| g.reads_field(&f.kind))
    }
    /// The joint table (`Modifier Group A + B`) that spans `modi k`, if any.
    pub fn joint_group(&self, k: u8) -> Option<&ModifierGroup> {
        self.groups.iter().find(|g| g.joint.contains(&k))
    }
    /// The `Modifier Group N` table, if any.
    pub fn group(&self, kind: GroupKind, index: u8) -> Option<&ModifierGroup> {
        self.groups
            .iter()
            .find(|g| g.kind == kind && g.index == index)
    }
    /// The field whose label says `operand N`.
    pub fn operand_field(&self, n: usize) -> Option<&Field> {
        self.fields
            .iter()
            .find(|f| f.kind == FieldKind::Operand(n as u8))
    }
    /// The opcode bits: the lowest run of consecutive bits the variant fixes, with the bits
    /// below it that no field covers (bits 0-11 in every table of the seeds and of synth/,
    /// where the guard field starts at bit 12; SM90 TMML leaves bit 0 undescribed and fixes
    /// 1-11: bits 0-11; SM120 LDGMC's synthesised table draws a modifier over bit 0: bits
    /// 1-11). 0 when the variant fixes no bit. The reading never reads these bits as fields
    /// ([`crate::reading::flips`]) and a word's nearest variant must share the fixed ones
    /// ([`crate::codec::Codec::verdict_of`]).
    pub fn opcode_mask(&self) -> u128 {
        if self.fixed_mask == 0 {
            return 0;
        }
        let lo = self.fixed_mask.trailing_zeros();
        let run = (self.fixed_mask >> lo).trailing_ones();
        let ones = if run >= 128 {
            u128::MAX
        } else {
            (1u128 << run) - 1
        };
        let below = (1u128 << lo) - 1;
        let fields = self.field_mask() & below;
        // From the highest field bit below the run (exclusive) up to the run.
        let free_below = if fields == 0 {
            below
        } else {
            below & !((1u128 << (128 - fields.leading_zeros())) - 1)
        };
        ones << lo | free_below
    }
    /// Mask of every bit some field covers.
    pub fn field_mask(&self) -> u128 {
        self.fields.iter().fold(0, |m, f| m | f.mask())
    }
    /// Mask of every bit the table describes (fixed bits and field bits).
    pub fn described_mask(&self) -> u128 {
        self.fixed_mask | self.field_mask()
    }
}

/// A lint-level oddity noticed while parsing (the table is still usable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Oddity {
    /// 1-based line.
    pub line: usize,
    /// Variant key ("" for file-level oddities).
    pub key: String,
    /// Short kind, e.g. `header-gap`, `row-cut-off`, `split-label`.
    pub kind: String,
    /// Bits concerned.
    pub bits: Vec<u8>,
    /// Human-readable message.
    pub message: String,
}

/// Makes the variant keys of `t` distinct: the second and later variants under a key already
/// used are read as `KEY#2`, `KEY#3`... (in file order), each with a `repeated-key` oddity
/// naming the first one's line, so findings, root causes and `explain` can tell them apart
/// (nv_isa_solver's SM103 FRND page has two variants keyed `FRND_R_R`). Both dialects and
/// HTML pages call it once the table is parsed.
pub fn distinct_keys(t: &mut Table) {
    let mut first: std::collections::HashMap<String, (usize, usize)> =
        std::collections::HashMap::new();
    for v in &mut t.variants {
        let seen = first.entry(v.key.clone()).or_insert((v.line, 0));
        seen.1 += 1;
        if seen.1 == 1 {
            continue;
        }
        let (line, n) = *seen;
        let renamed = format!("{}#{n}", v.key);
        t.oddities.push(Oddity {
            line: v.line,
            key: renamed.clone(),
            kind: "repeated-key".into(),
            bits: vec![],
            message: format!(
                "key `{}` also used by the variant at line {line}: read as `{renamed}`",
                v.key
            ),
        });
        v.key = renamed;
    }
}

/// One table file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Table {
    /// Path as given when loading.
    pub path: String,
    /// Dialect of the file.
    pub dialect: Dialect,
    /// Arch from the header line, else from specs/ARCH_MANIFEST.tsv, else None.
    pub arch: Option<Arch>,
    /// Where `arch` came from: `header`, `manifest`, `option` or `none`.
    pub arch_source: String,
    /// Mnemonic (file header, or the first variant's title in dialect B).
    pub mnemonic: String,
    /// Description line of the file header (dialect A).
    pub description: Option<String>,
    /// The variant count the header declares (dialect A).
    pub declared_variants: Option<usize>,
    /// Variants in file order.
    pub variants: Vec<Variant>,
    /// Oddities noticed while parsing.
    pub oddities: Vec<Oddity>,
}

/// Serialises a u128 as 32 lowercase hex digits.
pub fn hex128<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:032x}"))
}

/// Reads 32 hex digits written by [`hex128`].
pub fn unhex128<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    let s = String::deserialize(d)?;
    u128::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use crate::spec::parse_table;

    #[test]
    fn the_opcode_bits_are_the_lowest_fixed_run_with_the_free_bits_below_it() {
        let text = include_str!("../../specs/sm90/TMML.txt");
        let mut v = parse_table("TMML.txt", text).unwrap().variants[0].clone();
        // The seed fixes bits 0-11; the guard field starts at bit 12.
        assert_eq!(v.fixed_mask & 0xffff, 0xfff);
        assert_eq!(v.opcode_mask(), 0xfff);
        // Bit 0 left free (as SM90 TMML's resolved layout has it): still bits 0-11.
        v.fixed_mask &= !1;
        assert_eq!(v.opcode_mask(), 0xfff);
        // Bit 0 under a field (SM120 LDGMC's modifier): bits 1-11.
        v.fields[0].ranges = vec![crate::spec::BitRange { lo: 0, len: 1 }];
        assert_eq!(v.opcode_mask(), 0xffe);
        v.fixed_mask = 0;
        assert_eq!(v.opcode_mask(), 0);
    }

    /// Two variants under one key (nv_isa_solver's FRND page): the second is read as `KEY#2`,
    /// with a `repeated-key` oddity at its line naming the first's.
    #[test]
    fn a_repeated_key_is_read_with_its_occurrence() {
        let text = include_str!("../../synth/SM80/ALD.txt")
            .replace("key: ALD_R_A_R_N", "key: ALD_R_A_I")
            .replace("key: ALD_R_A_R_R", "key: ALD_R_A_I");
        let t = crate::spec::parse_table("ALD.txt", &text).unwrap();
        let keys: Vec<&str> = t.variants.iter().map(|v| v.key.as_str()).collect();
        assert_eq!(
            keys,
            ["ALD_R_A_UR_R", "ALD_R_A_I", "ALD_R_A_I#2", "ALD_R_A_I#3"]
        );
        let odd: Vec<&super::Oddity> = t
            .oddities
            .iter()
            .filter(|o| o.kind == "repeated-key")
            .collect();
        assert_eq!(odd.len(), 2);
        assert_eq!(odd[0].key, "ALD_R_A_I#2");
        assert_eq!(odd[0].line, t.variants[2].line);
        assert_eq!(
            odd[0].message,
            format!(
                "key `ALD_R_A_I` also used by the variant at line {}: read as `ALD_R_A_I#2`",
                t.variants[1].line
            )
        );
    }
}

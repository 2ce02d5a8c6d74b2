//! Strict parser for both table dialects: text -> [`Table`].

use super::SpecError;
use super::model::*;
use crate::arch::Arch;
use std::collections::BTreeSet;

/// A non-blank line with its 1-based number.
#[derive(Clone, Copy)]
struct Line<'a> {
    no: usize,
    text: &'a str,
}

/// Cursor over the non-blank lines of one file.
struct Cursor<'a> {
    file: &'a str,
    lines: Vec<Line<'a>>,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, t)| Line {
                no: i + 1,
                text: t.trim_end_matches('\r'),
            })
            .filter(|l| !l.text.trim().is_empty())
            .collect();
        Cursor {
            file,
            lines,
            pos: 0,
        }
    }
    fn peek(&self, ahead: usize) -> Option<Line<'a>> {
        self.lines.get(self.pos + ahead).copied()
    }
    fn at_end(&self) -> bool {
        self.pos >= self.lines.len()
    }
    fn last_line_no(&self) -> usize {
        self.lines.last().map_or(1, |l| l.no)
    }
    fn next(&mut self, what: &str) -> Result<Line<'a>, SpecError> {
        let line = self.peek(0).ok_or_else(|| SpecError::Syntax {
            file: self.file.to_string(),
            line: self.last_line_no(),
            message: format!("file ends where {what} was expected"),
        })?;
        self.pos += 1;
        Ok(line)
    }
    fn err(&self, line: usize, message: impl Into<String>) -> SpecError {
        SpecError::Syntax {
            file: self.file.to_string(),
            line,
            message: message.into(),
        }
    }
}

/// Parses one table file's text. `file` names it in errors and in [`Table::path`].
///
/// Errors: [`SpecError::Syntax`] with the 1-based line of the first line that fits neither
/// dialect. Oddities that leave the table usable (header gaps, cut-off rows, split labels, modi
/// labels with no table...) are kept in [`Table::oddities`].
pub fn parse_table(file: &str, text: &str) -> Result<Table, SpecError> {
    // A UTF-8 byte-order mark is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut cur = Cursor::new(file, text);
    if cur.at_end() {
        return Err(cur.err(1, "empty table file"));
    }
    let dialect = match cur.peek(1) {
        Some(l) if is_slot_line(l.text) => Dialect::B,
        _ => Dialect::A,
    };
    let mut table = Table {
        path: file.to_string(),
        dialect,
        arch: None,
        arch_source: "none".into(),
        mnemonic: String::new(),
        description: None,
        declared_variants: None,
        variants: Vec::new(),
        oddities: Vec::new(),
    };
    let mut count_line = 0;
    if dialect == Dialect::A {
        count_line = parse_file_header(&mut cur, &mut table)?;
    }
    while !cur.at_end() {
        let v = parse_variant(&mut cur, &mut table)?;
        table.variants.push(v);
    }
    if table.mnemonic.is_empty() {
        table.mnemonic = table
            .variants
            .first()
            .map(|v| v.title.split('.').next().unwrap_or("").to_string())
            .unwrap_or_default();
        if let Err(m) = check_mnemonic(&table.mnemonic, IN_TITLE) {
            let first = table.variants.first().map_or(1, |v| v.line);
            return Err(cur.err(first, m));
        }
    }
    if let Some(n) = table.declared_variants
        && n != table.variants.len()
    {
        return Err(cur.err(
            count_line,
            format!(
                "header declares {n} variants, the file has {} (cut short or extended?)",
                table.variants.len()
            ),
        ));
    }
    super::model::distinct_keys(&mut table);
    Ok(table)
}

fn is_slot_line(t: &str) -> bool {
    t.starts_with("WRITE ") || t.starts_with("READ ")
}

/// Longest mnemonic a table may name, in bytes: it names the oracle file
/// (`oracle/<arch>/<MNEMONIC>.tsv`), and nvdisasm's longest is some 12.
pub const MAX_MNEMONIC: usize = 64;

/// Whether `s` can be a mnemonic: 1 to [`MAX_MNEMONIC`] ASCII letters, digits and `_`
/// (`TLD`, `UTMALDG`, `F2FP`).
pub fn is_mnemonic(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_MNEMONIC
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Where a dialect B or HTML table's mnemonic comes from, for [`check_mnemonic`]'s message.
pub(crate) const IN_TITLE: &str = " before the first `.` of the title";

/// `Ok` when `s` [`is_mnemonic`]; else the message naming the rule, where the mnemonic was
/// looked for (`place`, e.g. [`IN_TITLE`]) and what was found.
pub(crate) fn check_mnemonic(s: &str, place: &str) -> Result<(), String> {
    match is_mnemonic(s) {
        true => Ok(()),
        false => Err(format!(
            "expected a mnemonic (letters, digits, `_`, at most {MAX_MNEMONIC} bytes){place}, \
             found `{s}`"
        )),
    }
}

/// Dialect A: mnemonic, description, `N variants on SMxx (NAME)`. Returns the line of the
/// count.
fn parse_file_header(cur: &mut Cursor, table: &mut Table) -> Result<usize, SpecError> {
    let m = cur.next("the mnemonic")?;
    if let Err(e) = check_mnemonic(m.text.trim(), "") {
        return Err(cur.err(m.no, e));
    }
    table.mnemonic = m.text.trim().to_string();
    let d = cur.next("the description")?;
    table.description = Some(d.text.trim().to_string());
    let c = cur.next("the variant-count line")?;
    let words: Vec<&str> = c.text.split_whitespace().collect();
    match words.as_slice() {
        [n, "variants" | "variant", "on", arch, ..] => {
            table.declared_variants = Some(
                n.parse()
                    .map_err(|_| cur.err(c.no, format!("`{n}` is not a variant count")))?,
            );
            table.arch = Some(arch.parse().map_err(|e| cur.err(c.no, format!("{e}")))?);
            table.arch_source = "header".into();
        }
        _ => {
            return Err(cur.err(
                c.no,
                format!("expected `N variants on SMxx (NAME)`, found `{}`", c.text),
            ));
        }
    }
    Ok(c.no)
}

fn parse_variant(cur: &mut Cursor, table: &mut Table) -> Result<Variant, SpecError> {
    let first = cur.peek(0).expect("caller checked");
    let (title, sig_text, slots) = match table.dialect {
        Dialect::A | Dialect::Html => parse_head_a(cur, &table.mnemonic)?,
        Dialect::B => parse_head_b(cur)?,
    };
    let signature = parse_signature(&sig_text).map_err(|m| cur.err(first.no, m))?;
    let d = cur.next("`distilled:`")?;
    let distilled = d
        .text
        .strip_prefix("distilled:")
        .ok_or_else(|| {
            cur.err(
                d.no,
                format!("expected `distilled: ...`, found `{}`", d.text),
            )
        })?
        .trim()
        .to_string();
    let k = cur.next("`key:`")?;
    let key = k
        .text
        .strip_prefix("key:")
        .ok_or_else(|| cur.err(k.no, format!("expected `key: ...`, found `{}`", k.text)))?
        .trim()
        .to_string();
    let mut v = Variant {
        key,
        title,
        signature,
        distilled,
        slots,
        fields: Vec::new(),
        fixed_mask: 0,
        fixed_value: 0,
        undescribed: 0,
        groups: Vec::new(),
        line: first.no,
        layout_lines: [0; 4],
        print_order: Vec::new(),
        printer: None,
        semicolon: None,
        identity: 0,
    };
    parse_layout(cur, &mut v, &mut table.oddities)?;
    while let Some(l) = cur.peek(0) {
        if group_title(l.text).is_none() {
            break;
        }
        let g = parse_group(cur, table.dialect)?;
        v.groups.push(g);
    }
    if cur.at_end()
        && v.groups.is_empty()
        && let Some(f) = v
            .fields
            .iter()
            .find(|f| matches!(f.kind, FieldKind::Modifier(_) | FieldKind::OperandModifier))
    {
        return Err(cur.err(
            cur.last_line_no(),
            format!(
                "file ends after the layout of `{}`: label `{}` has no modifier table (cut short?)",
                v.key, f.label
            ),
        ));
    }
    check_groups(&v, &mut table.oddities);
    Ok(v)
}

/// Dialect A: `[title]`, signature; the title defaults to the file mnemonic (LD has none).
fn parse_head_a(
    cur: &mut Cursor,
    mnemonic: &str,
) -> Result<(String, String, Vec<RegSlot>), SpecError> {
    let is_distilled = |l: Option<Line>| l.is_some_and(|l| l.text.starts_with("distilled:"));
    if is_distilled(cur.peek(1)) {
        let s = cur.next("a signature")?;
        Ok((mnemonic.to_string(), s.text.trim().to_string(), vec![]))
    } else if is_distilled(cur.peek(2)) {
        let t = cur.next("a title")?;
        let s = cur.next("a signature")?;
        Ok((t.text.trim().to_string(), s.text.trim().to_string(), vec![]))
    } else {
        let l = cur.peek(0).expect("caller checked");
        Err(cur.err(
            l.no,
            format!(
                "expected a variant (title, signature, `distilled:`), found `{}`",
                l.text
            ),
        ))
    }
}

/// Dialect B: `TITLE SIG, SIG` then an optional `WRITE P (1 slots) ...` line.
fn parse_head_b(cur: &mut Cursor) -> Result<(String, String, Vec<RegSlot>), SpecError> {
    let t = cur.next("a title line")?;
    let (title, sig) = t.text.trim().split_once(' ').ok_or_else(|| {
        cur.err(
            t.no,
            format!("expected `TITLE OPERANDS`, found `{}`", t.text),
        )
    })?;
    let mut slots = Vec::new();
    if let Some(l) = cur.peek(0)
        && is_slot_line(l.text)
    {
        cur.pos += 1;
        slots = parse_slots(l.text).map_err(|m| cur.err(l.no, m))?;
    }
    Ok((title.to_string(), sig.trim().to_string(), slots))
}

/// `WRITE P (1 slots) READ R (3 slots)` -> slots.
fn parse_slots(text: &str) -> Result<Vec<RegSlot>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for chunk in words.chunks(4) {
        match chunk {
            [acc, file, n, "slots)"] => {
                let access = match *acc {
                    "READ" => Access::Read,
                    "WRITE" => Access::Write,
                    _ => return Err(format!("`{acc}` is neither READ nor WRITE")),
                };
                let slots = n
                    .strip_prefix('(')
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| format!("`{n}` is not a slot count like `(2`"))?;
                out.push(RegSlot {
                    access,
                    file: file.to_string(),
                    slots,
                });
            }
            _ => {
                return Err(format!(
                    "malformed register-slot entry `{}`",
                    chunk.join(" ")
                ));
            }
        }
    }
    Ok(out)
}

/// Parses a signature into atoms and written operands: `P,R,[R+UR+I],P` (or with spaces
/// after commas), and the forms table generators write: `c[I][I]`, `c[I][RI]`, `cx[UR][I]`,
/// `cx[UR][RI]`, `desc[UR][R+I]` ([`SigOperand::Bracketed`]), `[R+UR+I]`, `[UR+I]`
/// ([`SigOperand::Memory`]), and any operand name (`SR`, `SM_SHADER_TYPE`, texture kinds:
/// [`OperandKind::Other`]).
///
/// A written operand is optional prefix letters, then one or more bracket groups, each a
/// `+`-joined list of atoms; without brackets it is one atom (a name, which may start with
/// one `+` or `-`: `+SNAN`). Inside brackets `RI` is two
/// atoms, R then I (see [`SigOperand::Bracketed`]). Errors (a message quoting the operand
/// and the signature): an empty operand or atom, an unclosed or stray bracket, text after a
/// bracket group, a prefix that is not letters, whitespace inside an atom.
pub fn parse_signature(text: &str) -> Result<Signature, String> {
    let mut atoms = Vec::new();
    let mut operands = Vec::new();
    for part in split_top_level(text).map_err(|m| format!("{m} in signature `{text}`"))? {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("empty operand in signature `{text}`"));
        }
        let bad = |why: &str| format!("malformed operand `{part}` in signature `{text}`: {why}");
        let Some(open) = part.find('[') else {
            // A signed name is one word too: nv_isa_solver's SM103 HADD2 page writes the
            // constant operands `+SNAN` and `+QNAN` (`R, R, +SNAN, FIMM`).
            let word = part.strip_prefix(['+', '-']).unwrap_or(part);
            if word.is_empty() || part.contains(char::is_whitespace) || word.contains([']', '+']) {
                return Err(bad(
                    "an operand name is one word (or brackets: `[R+I]`, `c[I][I]`)",
                ));
            }
            operands.push(SigOperand::Plain(atoms.len()));
            atoms.push(OperandKind::from_token(part));
            continue;
        };
        let prefix = part[..open].trim();
        if !prefix.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(bad(
                "the text before `[` must be letters (`c`, `cx`, `desc`)",
            ));
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut rest = &part[open..];
        while !rest.is_empty() {
            let Some(inner) = rest.strip_prefix('[') else {
                return Err(bad("text after a bracket group"));
            };
            let close = inner.find(']').ok_or_else(|| bad("unclosed `[`"))?;
            let body = &inner[..close];
            if body.contains('[') {
                return Err(bad("nested `[`"));
            }
            let mut ids = Vec::new();
            for a in body.split('+').map(str::trim) {
                if a.is_empty() {
                    return Err(bad("empty atom inside brackets"));
                }
                if a.contains(char::is_whitespace) {
                    return Err(bad("whitespace inside an atom"));
                }
                // nv_isa_solver writes a register plus immediate as one token (`c[I][RI]`):
                // two atoms, as the layout's `operand N` labels count them.
                let kinds: &[&str] = if a == "RI" { &["R", "I"] } else { &[a] };
                for k in kinds {
                    ids.push(atoms.len());
                    atoms.push(OperandKind::from_token(k));
                }
            }
            groups.push(ids);
            rest = inner[close + 1..].trim_start();
        }
        if prefix.is_empty() && groups.len() == 1 {
            operands.push(SigOperand::Memory(groups.pop().expect("one group")));
        } else {
            operands.push(SigOperand::Bracketed {
                prefix: prefix.to_string(),
                groups,
            });
        }
    }
    Ok(Signature {
        text: text.to_string(),
        atoms,
        operands,
    })
}

/// Splits a signature at the commas outside brackets. Errors: a `]` with no `[`.
fn split_top_level(text: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| "`]` with no `[`".to_string())?
            }
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    Ok(out)
}

/// Highest `N` of `operand N` and `modi N` labels.
pub const MAX_LABEL_INDEX: u32 = 63;

/// Checks a layout label against the known kinds: `operand N`, `modi N` (N at most
/// [`MAX_LABEL_INDEX`]), `modi`, `pred`, `predicate`, the scheduling fields, or a flag name (a
/// letter, then letters, digits, `_`, `-`, `.`; at most 32 characters), each optionally
/// followed by ` #K` (a segment of a split field, written by `emit`). The message quotes the
/// label with control characters escaped.
fn check_label(label: &str) -> Result<(), String> {
    let shown: String = label.chars().flat_map(char::escape_default).collect();
    if label.chars().any(char::is_control) {
        return Err(format!("label `{shown}` holds a control character"));
    }
    // A segment of a split field, as resolved tables write it: `modi 1 #0`.
    let label = match label.rsplit_once(" #") {
        Some((base, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => label,
    };
    for (prefix, what) in [("operand", "operand"), ("modi", "modifier group")] {
        let Some(rest) = label.strip_prefix(prefix) else {
            continue;
        };
        if prefix == "modi" && rest.is_empty() {
            return Ok(());
        }
        let Some(n) = rest.strip_prefix(' ') else {
            break; // `operandX`, `modifier`: judged as a flag name below
        };
        return match n.parse::<u32>() {
            Ok(i) if i <= MAX_LABEL_INDEX && i.to_string() == n => Ok(()),
            Ok(n) if n > MAX_LABEL_INDEX => Err(format!(
                "label `{shown}`: {what} index {n} is out of range (at most {MAX_LABEL_INDEX})"
            )),
            _ => Err(format!(
                "label `{shown}`: expected `{prefix} N` with N a number 0-{MAX_LABEL_INDEX}"
            )),
        };
    }
    // A flag name, or a number of two digits or more: nv_isa_solver's SM103 CS2R page labels
    // a bit `32` (the `.32` modifier); a lone digit is a bit number, not a label.
    let mut chars = label.chars();
    let first = chars.next();
    let flag_like = (first.is_some_and(|c| c.is_ascii_alphabetic())
        || (first.is_some_and(|c| c.is_ascii_digit()) && label.len() >= 2))
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && label.len() <= 32;
    if flag_like {
        Ok(())
    } else {
        Err(format!(
            "label `{shown}` is none of the known kinds (`operand N`, `modi N`, `modi`, `pred`, \
             `predicate`, a scheduling field, or a flag name: a letter or two digits or more, \
             then letters, digits, `_`, `-`, `.`)"
        ))
    }
}

/// Classifies a layout label. `None` for fixed bits and empty cells.
fn classify(label: &str) -> FieldKind {
    let num = |p: &str| {
        label
            .strip_prefix(p)
            .and_then(|n| n.trim().parse::<u8>().ok())
    };
    if let Some(n) = num("operand ") {
        return FieldKind::Operand(n);
    }
    if let Some(n) = num("modi ") {
        return FieldKind::Modifier(n);
    }
    match label {
        "modi" => FieldKind::OperandModifier,
        "pred" | "predicate" => FieldKind::Guard,
        "stall" => FieldKind::Sched(SchedKind::Stall),
        "y" => FieldKind::Sched(SchedKind::Yield),
        "r-bar" => FieldKind::Sched(SchedKind::ReadBarrier),
        "w-bar" => FieldKind::Sched(SchedKind::WriteBarrier),
        "b-mask" => FieldKind::Sched(SchedKind::WaitMask),
        "reuse" => FieldKind::Sched(SchedKind::Reuse),
        other => FieldKind::Flag(other.to_string()),
    }
}

/// Bit numbers (0..64 inside the half) of a header row, aligned by label: a new byte starts
/// whenever the label does not increase.
fn header_bits(cur: &Cursor, l: Line) -> Result<Vec<u8>, SpecError> {
    let cells: Vec<&str> = l.text.split('\t').collect();
    header_bits_of(&cells).map_err(|m| cur.err(l.no, m))
}

/// [`header_bits`] on the cells of a header row (text or HTML): each cell a bit number 0-7
/// inside its byte; a new byte starts whenever the number does not increase. Errors name
/// the 1-based cell.
pub(crate) fn header_bits_of(cells: &[&str]) -> Result<Vec<u8>, String> {
    let mut bits = Vec::new();
    let mut byte = 0u8;
    let mut prev: Option<u8> = None;
    for (col, cell) in cells.iter().enumerate() {
        let label: u8 = match cell.trim().parse() {
            Ok(n) if n < 8 => n,
            _ => {
                let shown: String = cell
                    .chars()
                    .take(40)
                    .flat_map(char::escape_default)
                    .collect();
                return Err(format!(
                    "header cell {} is `{shown}`, not a bit number 0-7",
                    col + 1
                ));
            }
        };
        if prev.is_some_and(|p| label <= p) {
            byte += 1;
        }
        if byte >= 8 {
            return Err("header row describes more than 8 bytes".into());
        }
        prev = Some(label);
        bits.push(8 * byte + label);
    }
    Ok(bits)
}

/// Per-field bit sets under construction, in order of first appearance.
struct FieldAcc {
    label: String,
    bits: BTreeSet<u8>,
    line: usize,
}

/// A layout under construction: the fields so far and every bit some cell describes.
#[derive(Default)]
pub(crate) struct LayoutAcc {
    acc: Vec<FieldAcc>,
    described: u128,
}

/// Parses the four layout rows into fields, fixed bits and undescribed bits.
fn parse_layout(cur: &mut Cursor, v: &mut Variant, odd: &mut Vec<Oddity>) -> Result<(), SpecError> {
    let mut la = LayoutAcc::default();
    for half in 0..2u8 {
        let h = cur.next("a layout header row")?;
        let c = cur.next("a layout cell row")?;
        v.layout_lines[2 * half as usize] = h.no;
        v.layout_lines[2 * half as usize + 1] = c.no;
        if !h.text.contains('\t') || !c.text.contains('\t') {
            return Err(cur.err(h.no, "expected two tab-separated layout rows"));
        }
        let bits = header_bits(cur, h)?;
        let cells: Vec<&str> = c.text.split('\t').map(str::trim).collect();
        let at_end = cur.at_end();
        layout_half(half, &bits, &cells, [h.no, c.no], at_end, v, &mut la, odd)
            .map_err(|(line, m)| cur.err(line, m))?;
    }
    finish_layout(v, la).map_err(|(line, m)| cur.err(line, m))
}

/// One half of a layout (64 bits): `bits` are the header row's bit numbers per column (from
/// [`header_bits_of`]), `cells` the cell row's cells per column (`0`/`1` fixed bits, a label
/// starting a field, `""` continuing the field on its left). `lines` = [header line, cell
/// line]; `at_end`: nothing follows the rows (a short row is then an error, cut short).
/// Errors: (line, message).
#[allow(clippy::too_many_arguments)]
pub(crate) fn layout_half(
    half: u8,
    bits: &[u8],
    cells: &[&str],
    lines: [usize; 2],
    at_end: bool,
    v: &mut Variant,
    la: &mut LayoutAcc,
    odd: &mut Vec<Oddity>,
) -> Result<(), (usize, String)> {
    let [h_no, c_no] = lines;
    let gaps: Vec<u8> = (0..64u8)
        .filter(|b| !bits.contains(b))
        .map(|b| b + 64 * half)
        .collect();
    if !gaps.is_empty() {
        odd.push(oddity(
            h_no,
            v,
            "header-gap",
            gaps.clone(),
            format!(
                "header row has {} cells; bits {:?} have no cell",
                bits.len(),
                gaps
            ),
        ));
    }
    if cells.len() > bits.len() {
        return Err((
            c_no,
            format!(
                "{} cells under a header of {} cells",
                cells.len(),
                bits.len()
            ),
        ));
    }
    if cells.len() < bits.len() && at_end {
        return Err((
            c_no,
            format!(
                "file ends inside the layout of `{}`: the row has {} of {} cells (cut short?)",
                v.key,
                cells.len(),
                bits.len()
            ),
        ));
    }
    let acc = &mut la.acc;
    let mut open: Option<usize> = None; // index into acc of the field being continued
    for (i, &hb) in bits.iter().enumerate() {
        let bit = hb + 64 * half;
        let cell = match cells.get(i) {
            Some(c) => *c,
            None => {
                // Row cut off: the rest continues the last field, if any.
                if i == cells.len() {
                    let rest: Vec<u8> = bits[i..].iter().map(|b| b + 64 * half).collect();
                    let msg = match open {
                        Some(f) => format!(
                            "row ends after {} cells; bits {:?} taken as the rest of `{}`",
                            cells.len(),
                            rest,
                            acc[f].label
                        ),
                        None => format!(
                            "row ends after {} cells; bits {:?} left undescribed",
                            cells.len(),
                            rest
                        ),
                    };
                    odd.push(oddity(c_no, v, "row-cut-off", rest, msg));
                }
                ""
            }
        };
        match cell {
            "0" | "1" => {
                open = None;
                v.fixed_mask |= 1u128 << bit;
                if cell == "1" {
                    v.fixed_value |= 1u128 << bit;
                }
                la.described |= 1u128 << bit;
            }
            "" => match open {
                Some(f) => {
                    acc[f].bits.insert(bit);
                    la.described |= 1u128 << bit;
                }
                // A cell the cut-off row lacks: its `row-cut-off` finding names every such bit.
                None if i >= cells.len() => {}
                None => {
                    odd.push(oddity(
                        c_no,
                        v,
                        "empty-cell",
                        vec![bit],
                        format!("bit {bit}: empty cell with no field on its left"),
                    ));
                }
            },
            label => {
                let f = match acc.iter().position(|a| a.label == label) {
                    Some(f) => {
                        odd.push(oddity(
                            c_no,
                            v,
                            "split-label",
                            vec![bit],
                            format!(
                                "label `{label}` appears again at bit {bit} (first at bit {})",
                                acc[f].bits.first().copied().unwrap_or(0)
                            ),
                        ));
                        f
                    }
                    None => {
                        check_label(label).map_err(|m| (c_no, m))?;
                        acc.push(FieldAcc {
                            label: label.to_string(),
                            bits: BTreeSet::new(),
                            line: c_no,
                        });
                        acc.len() - 1
                    }
                };
                acc[f].bits.insert(bit);
                la.described |= 1u128 << bit;
                open = Some(f);
            }
        }
    }
    Ok(())
}

/// Ends a layout: the fields from `la` (a field wider than 64 bits split by
/// [`split_wide`]), undescribed bits; errors (line, message) for more than [`MAX_FIELDS`]
/// fields.
pub(crate) fn finish_layout(v: &mut Variant, la: LayoutAcc) -> Result<(), (usize, String)> {
    v.undescribed = !la.described;
    v.fields = la
        .acc
        .into_iter()
        .map(finish_field)
        .flat_map(split_wide)
        .collect();
    if v.fields.len() > MAX_FIELDS {
        return Err((
            v.layout_lines[1],
            format!(
                "{} fields; at most {MAX_FIELDS} are supported",
                v.fields.len()
            ),
        ));
    }
    Ok(())
}

/// Label suffix of the second part of a field wider than 64 bits ([`split_wide`]).
pub const HIGH_PART: &str = " (bits 64+)";

/// A field of at most 64 bits as it is; a wider one (nv_isa_solver's branch targets on SM103:
/// `operand 2` of `BRA_P_UP_I` over 85 bits) as two: the low 64 bits of its value under its
/// own label and kind, the bits above under the label with [`HIGH_PART`] appended, a flag.
/// Field values are 64-bit in the codec; the learned printer reads both parts as one number
/// (its slots are masks over the whole word).
fn split_wide(f: Field) -> Vec<Field> {
    if f.width() <= 64 {
        return vec![f];
    }
    let (mut low, mut high) = (Vec::new(), Vec::new());
    let mut left = 64u32;
    for r in &f.ranges {
        let take = (r.len as u32).min(left) as u8;
        if take > 0 {
            low.push(BitRange {
                lo: r.lo,
                len: take,
            });
        }
        if take < r.len {
            high.push(BitRange {
                lo: r.lo + take,
                len: r.len - take,
            });
        }
        left -= take as u32;
    }
    let label = format!("{}{HIGH_PART}", f.label);
    let upper = Field {
        kind: FieldKind::Flag(label.clone()),
        label,
        ranges: high,
        ..f.clone()
    };
    vec![Field { ranges: low, ..f }, upper]
}

fn finish_field(a: FieldAcc) -> Field {
    let mut ranges: Vec<BitRange> = Vec::new();
    for b in a.bits {
        match ranges.last_mut() {
            Some(r) if r.lo as u16 + r.len as u16 == b as u16 && r.len < 64 => r.len += 1,
            _ => ranges.push(BitRange { lo: b, len: 1 }),
        }
    }
    Field {
        kind: classify(&a.label),
        label: a.label,
        ranges,
        line: a.line,
        names: Default::default(),
        rejected: Vec::new(),
        signed: false,
        context: Vec::new(),
    }
}

pub(crate) fn oddity(
    line: usize,
    v: &Variant,
    kind: &str,
    bits: Vec<u8>,
    message: String,
) -> Oddity {
    Oddity {
        line,
        key: v.key.clone(),
        kind: kind.to_string(),
        bits,
        message,
    }
}

/// What a modifier table's title says (see [`ModifierGroup`] for the title forms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GroupTitle {
    pub kind: GroupKind,
    pub index: u8,
    pub field: Option<u8>,
    pub joint: Vec<u8>,
}

/// `A` or `A + B (+ C...)`: the numbers, at least one.
fn title_numbers(t: &str) -> Option<Vec<u8>> {
    let ns: Option<Vec<u8>> = t.split('+').map(|n| n.trim().parse().ok()).collect();
    ns.filter(|v| !v.is_empty())
}

/// Reads a modifier table's title: `Modifier Group K`, `Modifier Group A + B`,
/// `Operand N Modifiers` (dialect A/B); `modi K modifiers`, `modi A + B modifiers`,
/// `Operand N operand modifiers (modi K)` (HTML). None for anything else.
pub(crate) fn group_title(t: &str) -> Option<GroupTitle> {
    let t = t.trim();
    let numbered = |ns: Vec<u8>| {
        let joint = if ns.len() > 1 { ns.clone() } else { vec![] };
        GroupTitle {
            kind: GroupKind::Mnemonic,
            index: ns[0],
            // A mnemonic table's field is its index (`modi K` reads `Modifier Group K`).
            field: None,
            joint,
        }
    };
    if let Some(n) = t.strip_prefix("Modifier Group ") {
        return title_numbers(n).map(numbered);
    }
    if let Some(n) = t
        .strip_prefix("modi ")
        .and_then(|n| n.strip_suffix(" modifiers"))
    {
        return title_numbers(n).map(numbered);
    }
    let rest = t.strip_prefix("Operand ")?;
    if let Some(n) = rest.strip_suffix(" Modifiers") {
        let n: u8 = n.trim().parse().ok()?;
        return Some(GroupTitle {
            kind: GroupKind::Operand,
            index: n,
            field: None,
            joint: vec![],
        });
    }
    let (n, k) = rest.split_once(" operand modifiers (modi ")?;
    let (n, k): (u8, u8) = (
        n.trim().parse().ok()?,
        k.strip_suffix(')')?.trim().parse().ok()?,
    );
    Some(GroupTitle {
        kind: GroupKind::Operand,
        index: n,
        field: Some(k),
        joint: vec![],
    })
}

fn parse_group(cur: &mut Cursor, dialect: Dialect) -> Result<ModifierGroup, SpecError> {
    let t = cur.next("a modifier table")?;
    let title = group_title(t.text).expect("caller checked");
    if let Some(l) = cur.peek(0)
        && l.text.split_whitespace().collect::<Vec<_>>() == ["Binary", "Value"]
    {
        cur.pos += 1;
    }
    let mut values = Vec::new();
    let mut width = 0;
    while let Some(l) = cur.peek(0) {
        let text = l.text.trim();
        let (bin, name) = match text.find(['\t', ' ']) {
            Some(i) => (&text[..i], text[i..].trim()),
            None => (text, ""),
        };
        if bin.is_empty() || !bin.bytes().all(|b| b == b'0' || b == b'1') || bin.len() > 32 {
            break;
        }
        cur.pos += 1;
        let name = if dialect == Dialect::B {
            // Every named row of dialect B ends with `.`: one without is cut short.
            match name.strip_suffix('.') {
                Some(n) => n,
                None if name.is_empty() => name,
                None => {
                    return Err(cur.err(
                        l.no,
                        format!("modifier row `{text}` does not end with `.` (cut short?)"),
                    ));
                }
            }
        } else {
            name
        };
        let row = modifier_row(bin, name, l.no).map_err(|m| cur.err(l.no, m))?;
        // Every row of a group has the same number of digits: a shorter or longer one is a
        // file cut inside it (`11` after `110 INV.`) or two groups run together.
        if let Some(first) = values.first().map(|_| width)
            && bin.len() as u32 != first
        {
            return Err(cur.err(
                l.no,
                format!(
                    "modifier row `{bin}` has {} binary digits, the rows above {first} (cut \
                     short?)",
                    bin.len()
                ),
            ));
        }
        width = width.max(bin.len() as u32);
        values.push(row);
    }
    if values.is_empty() {
        return Err(cur.err(t.no, format!("`{}` has no rows", t.text.trim())));
    }
    Ok(group_of(title, width, values, t.no))
}

/// A [`ModifierGroup`] from its title and rows.
pub(crate) fn group_of(
    title: GroupTitle,
    width: u32,
    values: Vec<ModifierValue>,
    line: usize,
) -> ModifierGroup {
    ModifierGroup {
        index: title.index,
        kind: title.kind,
        width,
        values,
        line,
        field: title.field,
        joint: title.joint,
    }
}

/// One row: `bin` (1-32 binary digits, checked here) and its name. Errors: not binary, too
/// long, a control character in the name.
pub(crate) fn modifier_row(bin: &str, name: &str, line: usize) -> Result<ModifierValue, String> {
    if bin.is_empty() || !bin.bytes().all(|b| b == b'0' || b == b'1') || bin.len() > 32 {
        let shown: String = bin
            .chars()
            .take(40)
            .flat_map(char::escape_default)
            .collect();
        return Err(format!("`{shown}` is not a binary value of 1-32 digits"));
    }
    if name.chars().any(char::is_control) {
        let shown: String = name.chars().flat_map(char::escape_default).collect();
        return Err(format!("modifier name `{shown}` holds a control character"));
    }
    Ok(ModifierValue {
        value: u32::from_str_radix(bin, 2).map_err(|e| e.to_string())?,
        name: modifier_name(name),
        line,
    })
}

pub(crate) fn modifier_name(name: &str) -> ModifierName {
    if name.is_empty() || name == "(default)" {
        return ModifierName::Default;
    }
    if let Some(n) = name.strip_prefix("INVALID").and_then(|n| n.parse().ok()) {
        return ModifierName::Invalid(n);
    }
    if let Some(n) = name.strip_prefix("???").and_then(|n| n.parse().ok()) {
        return ModifierName::Unknown(n);
    }
    ModifierName::Named(name.to_string())
}

/// Oddities between labels and modifier tables: `modi N` with no table, tables no label uses,
/// width differences, repeated table values. A joint table (`Modifier Group 1 + 2`) covers
/// each of its fields; its width must be the sum of theirs.
pub(crate) fn check_groups(v: &Variant, odd: &mut Vec<Oddity>) {
    for f in &v.fields {
        let what = match f.kind {
            FieldKind::Modifier(n) => format!("Modifier Group {n}"),
            FieldKind::OperandModifier => "an `Operand N Modifiers` table".to_string(),
            _ => continue,
        };
        let bits = field_bits(f);
        if let FieldKind::Modifier(n) = f.kind
            && v.field_group(f).is_none()
            && v.joint_group(n).is_some()
        {
            continue; // judged with the joint table below
        }
        match v.field_group(f) {
            None => odd.push(oddity(
                f.line,
                v,
                "modi-without-group",
                bits,
                format!("label `{}` ({} bits) has no {what}", f.label, f.width()),
            )),
            Some(g) if g.width != f.width() => odd.push(oddity(
                f.line,
                v,
                "group-width",
                bits,
                format!(
                    "label `{}` covers {} bits but {what} (line {}) has {}-bit values",
                    f.label,
                    f.width(),
                    g.line,
                    g.width
                ),
            )),
            Some(_) => {}
        }
    }
    for g in &v.groups {
        let name = if g.joint.is_empty() {
            g.index.to_string()
        } else {
            g.joint
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        };
        let used = if g.joint.is_empty() {
            v.fields.iter().any(|f| g.reads_field(&f.kind))
        } else {
            let members: Vec<Option<&Field>> = g
                .joint
                .iter()
                .map(|k| v.fields.iter().find(|f| f.kind == FieldKind::Modifier(*k)))
                .collect();
            if members.iter().all(Option::is_some) {
                let sum: u32 = members.iter().flatten().map(|f| f.width()).sum();
                if sum != g.width {
                    odd.push(oddity(
                        g.line,
                        v,
                        "group-width",
                        vec![],
                        format!(
                            "joint modifier table {name} has {}-bit values; its fields cover {sum} bits",
                            g.width
                        ),
                    ));
                }
            }
            members.iter().any(Option::is_some)
        };
        if !used {
            odd.push(oddity(
                g.line,
                v,
                "group-without-label",
                vec![],
                format!("modifier table {name} is used by no label"),
            ));
        }
        let mut seen = BTreeSet::new();
        for r in &g.values {
            if !seen.insert(r.value) {
                odd.push(oddity(
                    r.line,
                    v,
                    "group-repeated-value",
                    vec![],
                    format!("value {:b} appears twice in table {name}", r.value),
                ));
            }
        }
    }
}

/// Every bit number of a field, ascending.
pub fn field_bits(f: &Field) -> Vec<u8> {
    f.ranges.iter().flat_map(|r| r.lo..=r.hi()).collect()
}

/// Parses an `Arch` for error messages in callers that have a file and line.
pub fn parse_arch(file: &str, line: usize, s: &str) -> Result<Arch, SpecError> {
    s.parse().map_err(|e| SpecError::Syntax {
        file: file.to_string(),
        line,
        message: format!("{e}"),
    })
}

//! nv_isa_solver's HTML pages (`output/<MN>.html`, one per mnemonic) read directly into the
//! same [`Table`] model as the text dialects ([`Dialect::Html`]).
//!
//! What a page holds (checked on LDS.html, LDC.html and S2R.html of menxb/nv_isa_solver at
//! 8298470d, kept in tests/data/html/): per variant a `<div class="spec"
//! data-inst-hex="...">` with
//! - `span.base-name` (the title, e.g. `LDS.U8`) and `span.operands` (the signature: the text
//!   of the span, `&nbsp;` and spaces trimmed, e.g. `R, [R+INT_IMM]` or `R, cx[UR][RI]`);
//! - `<p> distilled: ...</p>` and `<p> key: ...</p>`;
//! - a `table.instviz` of four rows: bit numbers 0-7 per byte for bits 0-63, the labels of
//!   bits 0-63, bit numbers for 64-127, labels of 64-127. A label cell spans `colspan` bits
//!   (`<td colspan="24">operand 1</td>`); `0`/`1` cells are fixed bits;
//! - modifier tables, each a `<p>` whose own text is the title (`modi 1 modifiers`,
//!   `Operand 1 operand modifiers (modi 2)`) holding a table of (binary, name) rows. They list
//!   only the values the generator saw (LDC's `modi 2`: 01 IL, 10 IS, 11 ISL; no 00).
//!
//! `data-inst-hex` is the variant's fixed word as 16 bytes in memory order: bit b of the word
//! is bit b%8 of byte b/8 (so the word is the little-endian reading of the bytes). Where the
//! layout's `0`/`1` cells disagree with it, that is an oddity (`inst-hex-fixed-bits`), not an
//! error. The page names no arch: [`crate::spec::load_table`] takes it from `--arch` or the
//! folder's `ARCH_MANIFEST.tsv`, as for dialect B (nv_isa_solver's own tools run nvdisasm
//! with `SM100a` on these pages).
//!
//! Why a small tokenizer and not an HTML5 parser (html5ever, scraper): the pages are written
//! by a ~40-line string builder, always the same handful of tags, and they put `<table>`
//! inside `<p>`, which an HTML5 tree builder closes early (moving the modifier tables out of
//! the paragraph that titles them). A strict reader that keeps the nesting as written, knows
//! every byte offset for error messages, and refuses what it does not understand fits the
//! job better than a forgiving browser-grade parser.
//!
//! Lines: pages are often one long line, so every error and oddity gives the 1-based line and
//! its message the byte offset and the variant (index and key).

use super::SpecError;
use super::model::*;
use super::parse::{
    self, LayoutAcc, check_groups, finish_layout, group_of, group_title, header_bits_of,
    layout_half, modifier_row, oddity,
};

/// Deepest element nesting accepted (the pages nest 7 deep).
const MAX_DEPTH: usize = 64;

/// One element of the page: tag name (lowercase), attributes, children, byte offset of `<`.
#[derive(Debug)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Child>,
    at: usize,
}

#[derive(Debug)]
enum Child {
    El(usize),
    Text(String),
}

/// Elements that never have content.
const VOID: [&str; 8] = ["br", "hr", "img", "meta", "link", "input", "col", "wbr"];

/// The element tree of `text` (index 0 is the document root). Errors: (byte offset, message)
/// for an unterminated tag, comment or attribute, an end tag that closes another element than
/// the open one, an element left open at the end, nesting deeper than [`MAX_DEPTH`].
fn tree(text: &str) -> Result<Vec<Node>, (usize, String)> {
    let mut nodes = vec![Node {
        name: "#root".into(),
        attrs: vec![],
        children: vec![],
        at: 0,
    }];
    let mut stack = vec![0usize];
    let mut i = 0;
    let b = text.as_bytes();
    while i < b.len() {
        if b[i] != b'<' {
            let end = text[i..].find('<').map_or(b.len(), |k| i + k);
            let top = *stack.last().expect("root stays");
            nodes[top].children.push(Child::Text(decode(&text[i..end])));
            i = end;
            continue;
        }
        let rest = &text[i..];
        if let Some(r) = rest.strip_prefix("<!--") {
            let k = r
                .find("-->")
                .ok_or((i, "comment `<!--` never closed".to_string()))?;
            i += 4 + k + 3;
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            let k = rest
                .find('>')
                .ok_or((i, "declaration never closed".to_string()))?;
            i += k + 1;
            continue;
        }
        if let Some(r) = rest.strip_prefix("</") {
            let k = r.find('>').ok_or((i, "end tag never closed".to_string()))?;
            let name = r[..k].trim().to_ascii_lowercase();
            let top = *stack.last().expect("root stays");
            if top == 0 || nodes[top].name != name {
                let open = if top == 0 {
                    "nothing is open".to_string()
                } else {
                    format!("`<{}>` (byte {}) is open", nodes[top].name, nodes[top].at)
                };
                return Err((i, format!("`</{name}>` where {open}")));
            }
            stack.pop();
            i += 2 + k + 1;
            continue;
        }
        let (node, len, self_closing) = start_tag(text, i)?;
        i += len;
        let raw = matches!(node.name.as_str(), "style" | "script");
        let void = VOID.contains(&node.name.as_str());
        let idx = nodes.len();
        let top = *stack.last().expect("root stays");
        nodes[top].children.push(Child::El(idx));
        let name = node.name.clone();
        nodes.push(node);
        if raw {
            let close = format!("</{name}");
            let k = text[i..]
                .to_ascii_lowercase()
                .find(&close)
                .ok_or((i, format!("`<{name}>` never closed")))?;
            let j = text[i + k..]
                .find('>')
                .ok_or((i + k, format!("`</{name}` never closed")))?;
            i += k + j + 1;
        } else if !self_closing && !void {
            if stack.len() > MAX_DEPTH {
                return Err((i, format!("elements nested deeper than {MAX_DEPTH}")));
            }
            stack.push(idx);
        }
    }
    if let Some(&top) = stack.last()
        && top != 0
    {
        return Err((
            nodes[top].at,
            format!("`<{}>` is never closed", nodes[top].name),
        ));
    }
    Ok(nodes)
}

/// Parses the start tag at byte `at`: the node, the tag's length, whether it ends `/>`.
fn start_tag(text: &str, at: usize) -> Result<(Node, usize, bool), (usize, String)> {
    let b = text.as_bytes();
    let mut i = at + 1;
    let name_end = text[i..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .map_or(b.len(), |k| i + k);
    if name_end == i {
        return Err((at, "`<` that starts no tag (write `&lt;`)".to_string()));
    }
    let name = text[i..name_end].to_ascii_lowercase();
    i = name_end;
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i) {
            None => return Err((at, format!("tag `<{name}` never closed"))),
            Some(b'>') => {
                let node = Node {
                    name,
                    attrs,
                    children: vec![],
                    at,
                };
                return Ok((node, i + 1 - at, false));
            }
            Some(b'/') if b.get(i + 1) == Some(&b'>') => {
                let node = Node {
                    name,
                    attrs,
                    children: vec![],
                    at,
                };
                return Ok((node, i + 2 - at, true));
            }
            _ => {}
        }
        let an_end = text[i..]
            .find(|c: char| c.is_ascii_whitespace() || matches!(c, '=' | '>' | '/'))
            .map_or(b.len(), |k| i + k);
        if an_end == i {
            return Err((i, format!("unexpected `{}` in tag `<{name}`", b[i] as char)));
        }
        let an = text[i..an_end].to_ascii_lowercase();
        i = an_end;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if b.get(i) == Some(&b'=') {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let k = text[i + 1..]
                        .find(q as char)
                        .ok_or((i, format!("attribute `{an}` value never closed")))?;
                    value = decode(&text[i + 1..i + 1 + k]);
                    i += k + 2;
                }
                Some(_) => {
                    let end = text[i..]
                        .find(|c: char| c.is_ascii_whitespace() || c == '>')
                        .map_or(b.len(), |k| i + k);
                    value = decode(&text[i..end]);
                    i = end;
                }
                None => return Err((at, format!("tag `<{name}` never closed"))),
            }
        }
        attrs.push((an, value));
    }
}

/// Replaces the character references the pages can hold (`&nbsp;` `&amp;` `&lt;` `&gt;`
/// `&quot;` `&#39;` `&#NN;` `&#xNN;`); anything else is kept as written.
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let ent = end.map(|e| &rest[1..e]);
        let c = match ent {
            Some("nbsp") => Some('\u{a0}'),
            Some("amp") => Some('&'),
            Some("lt") => Some('<'),
            Some("gt") => Some('>'),
            Some("quot") => Some('"'),
            Some("apos") => Some('\''),
            Some(e) if e.starts_with("#x") || e.starts_with("#X") => {
                u32::from_str_radix(&e[2..], 16)
                    .ok()
                    .and_then(char::from_u32)
            }
            Some(e) if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match (c, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Read-only helpers over the tree.
struct Doc<'a> {
    nodes: &'a [Node],
}

impl Doc<'_> {
    fn attr(&self, n: usize, name: &str) -> Option<&str> {
        self.nodes[n]
            .attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    fn has_class(&self, n: usize, class: &str) -> bool {
        self.attr(n, "class")
            .is_some_and(|c| c.split_whitespace().any(|x| x == class))
    }
    fn children(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        self.nodes[n].children.iter().filter_map(|c| match c {
            Child::El(i) => Some(*i),
            Child::Text(_) => None,
        })
    }
    /// Every element below `n` in document order (depth-first), without `n`.
    fn descendants(&self, n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.children(n).collect();
        stack.reverse();
        while let Some(i) = stack.pop() {
            out.push(i);
            let mut kids: Vec<usize> = self.children(i).collect();
            kids.reverse();
            stack.extend(kids);
        }
        out
    }
    /// All text below `n`, in order.
    fn text(&self, n: usize) -> String {
        let mut out = String::new();
        self.text_into(n, &mut out, 0);
        out
    }
    fn text_into(&self, n: usize, out: &mut String, depth: usize) {
        if depth > MAX_DEPTH + 1 {
            return;
        }
        for c in &self.nodes[n].children {
            match c {
                Child::Text(t) => out.push_str(t),
                Child::El(i) => self.text_into(*i, out, depth + 1),
            }
        }
    }
    /// The text directly inside `n` (not inside its child elements).
    fn own_text(&self, n: usize) -> String {
        self.nodes[n]
            .children
            .iter()
            .filter_map(|c| match c {
                Child::Text(t) => Some(t.as_str()),
                Child::El(_) => None,
            })
            .collect()
    }
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Text with non-breaking spaces as spaces, trimmed.
fn clean(s: &str) -> String {
    s.replace('\u{a0}', " ").trim().to_string()
}

/// The fixed word of `data-inst-hex`: 32 hex digits, 16 bytes in memory order (bit b = bit
/// b%8 of byte b/8). None if it is not 32 hex digits.
pub fn inst_hex_word(hex: &str) -> Option<u128> {
    let hex = hex.trim();
    if hex.len() != 32 || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut bytes = [0u8; 16];
    for (k, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).ok()?;
    }
    Some(u128::from_le_bytes(bytes))
}

/// Parses one nv_isa_solver page. `file` names it in errors and in [`Table::path`]; the arch
/// is left unset (see the module documentation).
///
/// Errors ([`SpecError::Syntax`]: the 1-based line, and in the message the byte offset and the
/// variant's index and key): markup the reader cannot follow (see the tokenizer), a page with
/// no `div.spec`, a variant without `span.base-name`, `key:`, `distilled:` or a layout table
/// of four rows, a header cell that is not a bit number, a `colspan` that is not 1-64, more
/// cells than header columns, a signature or label of no known form, a modifier row that is
/// not (binary, name). Oddities (as for the text dialects, plus `inst-hex-fixed-bits` and
/// `inst-hex-malformed`) are kept in [`Table::oddities`].
pub fn parse_html(file: &str, text: &str) -> Result<Table, SpecError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let err = |at: usize, msg: String| SpecError::Syntax {
        file: file.to_string(),
        line: line_of(text, at),
        message: format!("byte {at}: {msg}"),
    };
    let nodes = tree(text).map_err(|(at, m)| err(at, m))?;
    let doc = Doc { nodes: &nodes };
    let specs: Vec<usize> = doc
        .descendants(0)
        .into_iter()
        .filter(|&n| nodes[n].name == "div" && doc.has_class(n, "spec"))
        .collect();
    if specs.is_empty() {
        return Err(err(
            0,
            "no `<div class=\"spec\">` variant in the page".into(),
        ));
    }
    let mut table = Table {
        path: file.to_string(),
        dialect: Dialect::Html,
        arch: None,
        arch_source: "none".into(),
        mnemonic: String::new(),
        description: None,
        declared_variants: None,
        variants: Vec::new(),
        oddities: Vec::new(),
    };
    for (idx, &d) in specs.iter().enumerate() {
        let v = variant(&doc, text, d, idx, &mut table.oddities).map_err(|(at, m)| err(at, m))?;
        table.variants.push(v);
    }
    table.mnemonic = table.variants[0]
        .title
        .split('.')
        .next()
        .unwrap_or("")
        .to_string();
    if let Err(message) = super::parse::check_mnemonic(&table.mnemonic, super::parse::IN_TITLE) {
        return Err(SpecError::Syntax {
            file: file.to_string(),
            line: table.variants[0].line,
            message,
        });
    }
    super::model::distinct_keys(&mut table);
    Ok(table)
}

/// One `div.spec` (the `idx`th) into a variant. Errors: (byte offset, message).
fn variant(
    doc: &Doc,
    text: &str,
    d: usize,
    idx: usize,
    odd: &mut Vec<Oddity>,
) -> Result<Variant, (usize, String)> {
    let nodes = doc.nodes;
    let at = nodes[d].at;
    let below = doc.descendants(d);
    let find = |f: &dyn Fn(usize) -> bool| below.iter().copied().find(|&n| f(n));
    let key = below
        .iter()
        .filter(|&&n| nodes[n].name == "p")
        .find_map(|&n| {
            clean(&doc.own_text(n))
                .strip_prefix("key:")
                .map(|k| k.trim().to_string())
        })
        .ok_or((at, format!("variant #{idx}: no `<p> key: ...</p>`")))?;
    let ctx = |m: String| format!("variant #{idx} `{key}`: {m}");
    let title = find(&|n| nodes[n].name == "span" && doc.has_class(n, "base-name"))
        .map(|n| clean(&doc.text(n)))
        .filter(|t| !t.is_empty())
        .ok_or((at, ctx("no `span.base-name` title".into())))?;
    let sig_text = find(&|n| nodes[n].name == "span" && doc.has_class(n, "operands"))
        .map(|n| clean(&doc.text(n)))
        .unwrap_or_default();
    let signature = if sig_text.is_empty() {
        Signature {
            text: String::new(),
            atoms: vec![],
            operands: vec![],
        }
    } else {
        parse::parse_signature(&sig_text).map_err(|m| (at, ctx(m)))?
    };
    let distilled = below
        .iter()
        .filter(|&&n| nodes[n].name == "p")
        .find_map(|&n| {
            clean(&doc.own_text(n))
                .strip_prefix("distilled:")
                .map(|k| k.trim().to_string())
        })
        .ok_or((at, ctx("no `<p> distilled: ...</p>`".into())))?;
    let mut v = Variant {
        key: key.clone(),
        title,
        signature,
        distilled,
        slots: vec![],
        fields: vec![],
        fixed_mask: 0,
        fixed_value: 0,
        undescribed: 0,
        groups: vec![],
        line: line_of(text, at),
        layout_lines: [0; 4],
        print_order: vec![],
        printer: None,
        semicolon: None,
        identity: 0,
    };
    // The layout: the first `table.instviz` that is a direct child of the div.
    let layout = doc
        .children(d)
        .find(|&n| nodes[n].name == "table")
        .ok_or((at, ctx("no layout table (`table.instviz`)".into())))?;
    let rows: Vec<usize> = rows_of(doc, layout);
    if rows.len() != 4 {
        return Err((
            nodes[layout].at,
            ctx(format!(
                "the layout table has {} rows, not 4 (bit numbers, labels, bit numbers, labels)",
                rows.len()
            )),
        ));
    }
    let mut la = LayoutAcc::default();
    for half in 0..2u8 {
        let (h, c) = (rows[2 * half as usize], rows[2 * half as usize + 1]);
        let lines = [line_of(text, nodes[h].at), line_of(text, nodes[c].at)];
        v.layout_lines[2 * half as usize] = lines[0];
        v.layout_lines[2 * half as usize + 1] = lines[1];
        let mut hcells = Vec::new();
        for td in doc.children(h).filter(|&n| nodes[n].name == "td") {
            if colspan(doc, td).map_err(|m| (nodes[td].at, ctx(m)))? != 1 {
                return Err((
                    nodes[td].at,
                    ctx("a header cell spans more than one bit".into()),
                ));
            }
            hcells.push(clean(&doc.text(td)));
        }
        let hrefs: Vec<&str> = hcells.iter().map(String::as_str).collect();
        let bits = header_bits_of(&hrefs).map_err(|m| (nodes[h].at, ctx(m)))?;
        let mut cells: Vec<String> = Vec::new();
        for td in doc.children(c).filter(|&n| nodes[n].name == "td") {
            let n = colspan(doc, td).map_err(|m| (nodes[td].at, ctx(m)))?;
            let t = clean(&doc.text(td));
            if cells.len() + n > 64 {
                return Err((
                    nodes[td].at,
                    ctx(format!(
                        "cells span more than 64 bits (this one starts at column {} and spans {n})",
                        cells.len() + 1
                    )),
                ));
            }
            match t.as_str() {
                "0" | "1" | "" => cells.extend(std::iter::repeat_n(t.clone(), n)),
                _ => {
                    cells.push(t);
                    cells.extend(std::iter::repeat_n(String::new(), n - 1));
                }
            }
        }
        let crefs: Vec<&str> = cells.iter().map(String::as_str).collect();
        layout_half(half, &bits, &crefs, lines, false, &mut v, &mut la, odd)
            .map_err(|(_, m)| (nodes[c].at, ctx(m)))?;
    }
    finish_layout(&mut v, la).map_err(|(_, m)| (nodes[layout].at, ctx(m)))?;
    // Modifier tables: `<p>TITLE<table>...</table></p>`.
    for p in below.iter().copied().filter(|&n| nodes[n].name == "p") {
        let own = clean(&doc.own_text(p));
        let Some(title) = group_title(&own) else {
            continue;
        };
        let p_at = nodes[p].at;
        let t = doc
            .children(p)
            .find(|&n| nodes[n].name == "table")
            .ok_or((p_at, ctx(format!("`{own}` holds no table"))))?;
        let mut values = Vec::new();
        let mut width = 0;
        for tr in rows_of(doc, t) {
            let tds: Vec<usize> = doc
                .children(tr)
                .filter(|&n| nodes[n].name == "td")
                .collect();
            let [b, n] = tds[..] else {
                return Err((
                    nodes[tr].at,
                    ctx(format!("a row of `{own}` has {} cells, not 2", tds.len())),
                ));
            };
            let bin = clean(&doc.text(b));
            let name = clean(&doc.text(n));
            let line = line_of(text, nodes[tr].at);
            let row = modifier_row(&bin, &name, line).map_err(|m| (nodes[tr].at, ctx(m)))?;
            width = width.max(bin.len() as u32);
            values.push(row);
        }
        if values.is_empty() {
            return Err((p_at, ctx(format!("`{own}` has no rows"))));
        }
        v.groups
            .push(group_of(title, width, values, line_of(text, p_at)));
    }
    check_groups(&v, odd);
    // The fixed word against the layout's fixed bits.
    match doc.attr(d, "data-inst-hex") {
        None => {}
        Some(h) => match inst_hex_word(h) {
            None => odd.push(oddity(
                v.line,
                &v,
                "inst-hex-malformed",
                vec![],
                format!("variant #{idx}: data-inst-hex `{h}` is not 32 hex digits"),
            )),
            Some(w) => {
                let diff = (w ^ v.fixed_value) & v.fixed_mask;
                if diff != 0 {
                    let bits: Vec<u8> = (0..128u8).filter(|b| diff >> b & 1 == 1).collect();
                    odd.push(oddity(
                        v.line,
                        &v,
                        "inst-hex-fixed-bits",
                        bits.clone(),
                        format!(
                            "variant #{idx}: data-inst-hex {h} (word {w:032x}) differs from the \
                             layout's fixed bits at bits {bits:?}"
                        ),
                    ));
                }
            }
        },
    }
    Ok(v)
}

/// The `tr` rows of a table (directly or inside `tbody`/`thead`).
fn rows_of(doc: &Doc, table: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for n in doc.children(table) {
        match doc.nodes[n].name.as_str() {
            "tr" => out.push(n),
            "tbody" | "thead" | "tfoot" => {
                out.extend(doc.children(n).filter(|&r| doc.nodes[r].name == "tr"))
            }
            _ => {}
        }
    }
    out
}

/// A cell's `colspan` (1 without one). Errors: not a number 1-64.
fn colspan(doc: &Doc, td: usize) -> Result<usize, String> {
    match doc.attr(td, "colspan") {
        None => Ok(1),
        Some(s) => match s.trim().parse::<usize>() {
            Ok(n) if (1..=64).contains(&n) => Ok(n),
            _ => Err(format!("colspan `{s}` is not a number 1-64")),
        },
    }
}

//! Writes a synthesised table in dialect A, the bundled tables' format (specs/sm90/TMML.txt):
//! `MNEMONIC`, a description, `N variants on SMxx (...)`, then per variant its title,
//! signature, `distilled:`, `key:`, the layout (two pairs of tab-separated rows: bit numbers
//! 0-7 per byte, then a cell per bit: `0`/`1`, a label starting a field, or empty to continue
//! the field on its left) and a `Modifier Group K` table (`Binary<TAB>Value`) per group.

use super::layout::{Cell, Layout};

/// One variant as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantText {
    /// Title (`IADD3.X`).
    pub title: String,
    /// Signature (`R,P,R,I,R`).
    pub signature: String,
    /// nvdisasm's text for the fixed word.
    pub distilled: String,
    /// Unique key in the table (`IADD3_R_P_R_I_R`).
    pub key: String,
    /// The layout.
    pub layout: Layout,
}

/// The whole table file: header, then each variant.
pub fn table(
    mnemonic: &str,
    description: &str,
    arch: crate::arch::Arch,
    variants: &[VariantText],
) -> String {
    let noun = if variants.len() == 1 {
        "variant"
    } else {
        "variants"
    };
    let mut s = format!(
        "{mnemonic}\n\n{description}\n\n{} {noun} on {arch} (synthesised)\n\n",
        variants.len()
    );
    for v in variants {
        s.push_str(&variant(v));
    }
    s
}

fn variant(v: &VariantText) -> String {
    let mut s = format!(
        "{}\n\n{}\n\ndistilled: {}\n\nkey: {}\n\n",
        v.title, v.signature, v.distilled, v.key
    );
    let header: Vec<String> = (0..64).map(|b| (b % 8).to_string()).collect();
    let header = header.join("\t");
    for half in 0..2usize {
        s.push_str(&header);
        s.push('\n');
        let cells: Vec<String> = (64 * half..64 * half + 64)
            .map(|b| cell(&v.layout, b, b == 64 * half))
            .collect();
        s.push_str(&cells.join("\t"));
        s.push('\n');
    }
    s.push('\n');
    for g in &v.layout.groups {
        s.push_str(&format!("Modifier Group {}\n\nBinary\tValue\n", g.index));
        let w = g.bits.len();
        for (value, name) in g.names.iter().enumerate() {
            s.push_str(&format!("{value:0w$b}\t{name}\n"));
        }
        s.push('\n');
    }
    s
}

/// The text of bit `b`'s cell: a fixed value, a label where a field starts (also at the
/// first bit of a half, where the row starts), else empty.
fn cell(l: &Layout, b: usize, row_start: bool) -> String {
    match l.cells[b] {
        Cell::Fixed(v) => if v { "1" } else { "0" }.to_string(),
        Cell::Field(id) => {
            if row_start || b == 0 || l.cells[b - 1] != Cell::Field(id) {
                l.labels[id].clone()
            } else {
                String::new()
            }
        }
    }
}

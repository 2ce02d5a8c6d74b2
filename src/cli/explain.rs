//! `sass-conform explain KEY`: what the learned reading says of a variant (or of every variant
//! of a mnemonic), in table words: its fixed bits and fields, how nvdisasm's text is printed
//! (the learned printer's slots, or the table-shaped reading), and how the variant is chosen
//! where several match a word.

use super::*;
use sass_conform::report::compare::plural;
use sass_conform::spec::printer::bit_ranges;

/// Arguments of `explain`.
#[derive(Args, Debug)]
pub(super) struct ExplainArgs {
    /// A variant key (`TLD_P_R_R_R_R_UR_D_I`) or a mnemonic (`LD`: every variant of it).
    key: String,
    /// Only tables of this arch.
    #[arg(long)]
    arch: Option<Arch>,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    #[command(flatten)]
    view: ViewArgs,
}

pub(super) fn explain_cmd(a: &ExplainArgs) -> Result<ExitCode> {
    let (codec, name, model) = load_view_model(&a.specs, &a.view)?;
    let mut shown = 0;
    for (ti, t) in codec.tables.iter().enumerate() {
        if a.arch.is_some() && t.arch != a.arch {
            continue;
        }
        let whole = t.mnemonic.eq_ignore_ascii_case(&a.key);
        for (vi, v) in t.variants.iter().enumerate() {
            if !whole && v.key != a.key {
                continue;
            }
            let tm = model.as_ref().and_then(|m| m.tables.get(ti));
            for line in describe_variant(t, vi, tm, name) {
                outln!("{line}");
            }
            outln!("");
            shown += 1;
        }
    }
    if shown == 0 {
        bail!(
            "{}: no variant key or mnemonic in the tables of {}{}",
            a.key,
            a.specs.display(),
            a.arch.map_or(String::new(), |x| format!(" on {x}"))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The lines `explain` prints for variant `vi` of `t` (`view`: "resolved" or "as written").
fn describe_variant(
    t: &spec::Table,
    vi: usize,
    tm: Option<&sass_conform::reading::model::TableModel>,
    view: &str,
) -> Vec<String> {
    let v = &t.variants[vi];
    let arch = t.arch.map_or("-".to_string(), |a| a.to_string());
    let mut out = vec![
        format!(
            "{arch} {} variant {} ({} line {}; {view})",
            t.mnemonic, v.key, t.path, v.line
        ),
        format!("  distilled: {}", v.distilled),
        format!(
            "  fixed bits {}: value {:#034x}",
            bit_ranges(v.fixed_mask),
            v.fixed_value
        ),
        "  fields:".to_string(),
    ];
    for f in &v.fields {
        let mut s = format!("    bits {:<12} {}", bit_ranges(f.mask()), f.label);
        if f.signed {
            s.push_str(", signed");
        }
        if !f.names.is_empty() {
            let n = plural(f.names.len(), "value", "values");
            s.push_str(&format!(", {n} named"));
        }
        if !f.rejected.is_empty() {
            let n = plural(f.rejected.len(), "value", "values");
            s.push_str(&format!(", {n} rejected"));
        }
        if !f.context.is_empty() {
            let m = f.context.iter().fold(0u128, |m, r| m | r.mask());
            s.push_str(&format!(", context bits {}", bit_ranges(m)));
        }
        out.push(s);
    }
    if !v.print_order.is_empty() {
        out.push(format!(
            "  modifier print order: {}",
            v.print_order.join(", ")
        ));
    }
    out.push(semicolon_line(v));
    match &v.printer {
        Some(p) => {
            out.push("  text: learned printer (slots in print order)".to_string());
            out.extend(p.describe().into_iter().map(|l| format!("    {l}")));
        }
        None => out.push(
            "  text: table-shaped reading (signature, fields and distilled line; no learned \
             printer did better on answers set aside)"
                .to_string(),
        ),
    }
    out.extend(choice_lines(t, vi, tm));
    out.extend(legality_lines(vi, tm));
    out
}

/// Most leaves of a recognizer's tree `explain` lists one by one.
const MAX_LEGALITY_PATHS: usize = 12;

/// How the variant's words are judged legal: the classes nvdisasm put its learned words in and
/// the tree telling them apart, one line per leaf (the tests on its path).
fn legality_lines(vi: usize, tm: Option<&sass_conform::reading::model::TableModel>) -> Vec<String> {
    use sass_conform::reading::legality::Class;
    let Some(r) = tm
        .and_then(|tm| tm.variants.get(vi))
        .and_then(Option::as_ref)
    else {
        return Vec::new();
    };
    let name = |c: &Class| match c {
        Class::Mnemonic(m) if m.is_empty() => "printed as an empty line".to_string(),
        Class::Mnemonic(m) => format!("printed as {m}"),
        Class::Unrecognized(reason) => format!("refused: {reason}"),
    };
    let Some(tree) = &r.tree else {
        return vec![format!(
            "  legality: every learned word {}",
            name(&r.classes[0])
        )];
    };
    let mut out = tree_lines("legality", tree, &r.classes, &name);
    if let Some(p) = &r.printing {
        out.extend(tree_lines(
            "printed (words read as recognised; from the printed answers only)",
            p,
            &r.classes,
            &name,
        ));
    }
    out.extend(constraint_lines(r));
    out
}

/// One line per (opclass, constraint table) whose unseen index values are refused: all of
/// them ([`Recognizer::closed`]) or those a tree over the index bits calls refused
/// ([`Recognizer::foreseen`]).
///
/// [`Recognizer::closed`]: sass_conform::reading::legality::Recognizer::closed
/// [`Recognizer::foreseen`]: sass_conform::reading::legality::Recognizer::foreseen
fn constraint_lines(r: &sass_conform::reading::legality::Recognizer) -> Vec<String> {
    let closed = r.closed.iter().map(|(o, t)| {
        format!(
            "  constraint: {t} for opclass `{o}`: every value no accepted word looked up is refused"
        )
    });
    let foreseen = r.foreseen.iter().map(|(o, t, v)| {
        let hex: Vec<String> = v.iter().map(|x| format!("{x:#x}")).collect();
        format!(
            "  constraint: {t} for opclass `{o}`: {} values never seen refused, as a tree over the index bits learned from the seen ones says: {}",
            v.len(),
            hex.join(", ")
        )
    });
    closed.chain(foreseen).collect()
}

/// One line for a recognizer's tree (`what`: a tree over bits ..., its leaves), then one per
/// leaf (up to [`MAX_LEGALITY_PATHS`]): the tests on its path, the class, the learned words.
fn tree_lines(
    what: &str,
    tree: &sass_conform::reading::tree::Tree,
    classes: &[sass_conform::reading::legality::Class],
    name: &dyn Fn(&sass_conform::reading::legality::Class) -> String,
) -> Vec<String> {
    let paths = tree.paths();
    let mut out = vec![format!(
        "  {what}: a tree over bits {} ({} leaves):",
        bit_ranges(tree.bits()),
        paths.len()
    )];
    for (tests, class, support) in paths.iter().take(MAX_LEGALITY_PATHS) {
        out.push(format!(
            "    {} -> {} ({support} learned words)",
            tests.join(" and "),
            classes.get(*class as usize).map_or_else(String::new, name)
        ));
    }
    if paths.len() > MAX_LEGALITY_PATHS {
        out.push(format!(
            "    ... {} more leaves",
            paths.len() - MAX_LEGALITY_PATHS
        ));
    }
    out
}

/// How the variant is chosen where several variants' fixed bits match a word.
fn choice_lines(
    t: &spec::Table,
    vi: usize,
    tm: Option<&sass_conform::reading::model::TableModel>,
) -> Vec<String> {
    let Some(tm) = tm else {
        return vec!["  choice: no learned reading (tables as written)".to_string()];
    };
    let mut out = Vec::new();
    if let Some(rank) = tm.preference().iter().position(|&p| p as usize == vi) {
        out.push(format!(
            "  choice: preferred {} of {} where variants overlap",
            rank + 1,
            tm.preference().len()
        ));
    }
    if let Some(tree) = &tm.chooser {
        out.push(format!(
            "  choice: the table's bit tree ({} leaves) names the variant first; bits tested: {}",
            tree.leaves(),
            bit_ranges(tree.bits())
        ));
    }
    if out.is_empty() {
        out.push(format!(
            "  choice: no other variant of {} overlaps it in the learned words",
            t.mnemonic
        ));
    }
    out
}

/// How the variant's text ends: which bits make nvdisasm write `X;` (learned, or the table's
/// scheduling fields where the quiet-word experiment was not recorded).
fn semicolon_line(v: &sass_conform::spec::Variant) -> String {
    use sass_conform::reading::semicolon::{Semicolon, table_rule};
    match (v.semicolon, table_rule(v)) {
        (Some(Semicolon::Quiet { mask, value: 0 }), _) => format!(
            "  `;` without a space when bits {} are all 0 (learned from the quiet-word experiment)",
            bit_ranges(mask)
        ),
        (Some(Semicolon::Quiet { mask, value }), _) => format!(
            "  `;` without a space when, of bits {}, exactly bits {} are set (learned from the quiet-word experiment)",
            bit_ranges(mask),
            bit_ranges(value)
        ),
        (Some(Semicolon::Spaced), _) => {
            "  ` ;` always (learned: the quiet word prints it)".to_string()
        }
        (None, Some((mask, _))) => format!(
            "  `;` without a space when the scheduling fields (bits {}) are quiet (the table's rule; not learned)",
            bit_ranges(mask)
        ),
        (None, None) => "  ` ;` always (no scheduling fields; not learned)".to_string(),
    }
}

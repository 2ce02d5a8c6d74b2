//! Splits the bundled resolved view (resolved/tables.json) per table, so that a command that
//! decodes words of one arch parses only that arch's tables (`sass_conform::load`). Writes
//! `$OUT_DIR/resolved_parts.rs`: the file with its per-table arrays emptied (`SKELETON`) and,
//! per table, its path, arch, variant keys and compact JSON (`PARTS`). A file that cannot be
//! split gives no parts: the commands then parse it whole, as before.

use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=resolved/tables.json");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    let code = split(Path::new("resolved/tables.json"), out).unwrap_or_else(|why| {
        println!("cargo::warning=resolved/tables.json not split ({why}): decode parses it whole");
        "pub const SKELETON: &str = \"\";\npub const PARTS: &[Part] = &[];\n".to_string()
    });
    std::fs::write(out.join("resolved_parts.rs"), code).expect("OUT_DIR is writable");
}

fn split(file: &Path, out: &Path) -> Result<String, String> {
    let data = std::fs::read(file).map_err(|e| e.to_string())?;
    let mut doc: Value = serde_json::from_slice(&data).map_err(|e| e.to_string())?;
    // Only the layout this split knows: per-table data anywhere else (a new array parallel to
    // the tables, say) would be kept whole beside the arch's tables and no longer line up.
    let keys = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let known = |got: Vec<String>, ok: &[&str]| got.iter().all(|k| ok.contains(&k.as_str()));
    if !known(
        keys(Some(&doc)),
        &["provenance", "tables", "layouts", "model"],
    ) || !known(keys(doc.get("model")), &["tables", "learned_from"])
    {
        return Err("unknown fields: teach build.rs and src/load.rs about them".into());
    }
    let take = |v: Option<&mut Value>| match v {
        Some(Value::Array(a)) => Ok(std::mem::take(a)),
        _ => Err("no array".to_string()),
    };
    let tables = take(doc.get_mut("tables"))?;
    let models = match doc.get_mut("model") {
        Some(m) => take(m.get_mut("tables"))?,
        None => Vec::new(),
    };
    if !models.is_empty() && models.len() != tables.len() {
        return Err("the model's tables are not parallel to the tables".into());
    }
    if let Some(Value::Array(a)) = doc.get_mut("layouts") {
        a.clear();
    }
    let write = |name: String, v: &Value| -> Result<String, String> {
        let text = serde_json::to_string(v).map_err(|e| e.to_string())?;
        std::fs::write(out.join(&name), text).map_err(|e| e.to_string())?;
        Ok(format!(
            "include_str!(concat!(env!(\"OUT_DIR\"), \"/{name}\"))"
        ))
    };
    let mut code = String::new();
    let skeleton = write("resolved-skeleton.json".into(), &doc)?;
    writeln!(code, "pub const SKELETON: &str = {skeleton};").unwrap();
    writeln!(code, "pub const PARTS: &[Part] = &[").unwrap();
    for (i, t) in tables.iter().enumerate() {
        let path = t
            .get("path")
            .and_then(Value::as_str)
            .ok_or("a table has no path")?;
        let arch = t.get("arch").and_then(Value::as_str);
        let keys: Vec<&str> = match t.get("variants") {
            Some(Value::Array(vs)) => vs
                .iter()
                .map(|v| {
                    v.get("key")
                        .and_then(Value::as_str)
                        .ok_or("a variant has no key")
                })
                .collect::<Result<_, _>>()?,
            _ => return Err("a table has no variants".into()),
        };
        let table = write(format!("resolved-table-{i}.json"), t)?;
        let model = match models.get(i) {
            Some(m) => format!("Some({})", write(format!("resolved-model-{i}.json"), m)?),
            None => "None".into(),
        };
        writeln!(
            code,
            "    Part {{ path: {path:?}, arch: {arch:?}, keys: &{keys:?}, table: {table}, model: {model} }},"
        )
        .unwrap();
    }
    writeln!(code, "];").unwrap();
    Ok(code)
}

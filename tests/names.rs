//! Modifier value names read from the recorded words (issue 11, `conform::names`), through
//! `sass-conform resolve` offline on oracle/: two names swapped at values no single flip of
//! the fixed word reaches (3 <-> 5) are two `modifier-name-differs` findings on the two value
//! rows, each with words whose nvdisasm text prints the other name; the bundled tables get none.

use std::process::Command;

/// `sass-conform resolve --json` on `args`: the findings (root-cause line left out).
fn resolve(args: &[&str]) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .arg("resolve")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("kind").is_some())
        .collect()
}

#[test]
fn swapped_names_of_values_no_flip_reaches_are_found_from_the_recorded_words() {
    let text = std::fs::read_to_string("specs/sm100/TEX.txt").unwrap();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    // TEX_P_R_R_R_R_UR_D_I's Modifier Group 4: `011 LU` (line 50) and `101 NA` (line 52).
    assert_eq!(lines[49], "011\tLU");
    assert_eq!(lines[51], "101\tNA");
    lines[49] = "011\tNA".into();
    lines[51] = "101\tLU".into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("TEX.txt");
    std::fs::write(&path, lines.join("\n")).unwrap();

    let fs = resolve(&[path.to_str().unwrap()]);
    let names: Vec<&serde_json::Value> = fs
        .iter()
        .filter(|f| f["kind"] == "modifier-name-differs")
        .collect();
    let got: Vec<(String, u64, String)> = names
        .iter()
        .map(|f| {
            (
                f["key"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "TEX_P_R_R_R_R_UR_D_I".to_string(),
                50,
                "Modifier Group 4, value 011: the table names it `NA`; nvdisasm prints `LU`"
                    .to_string()
            ),
            (
                "TEX_P_R_R_R_R_UR_D_I".to_string(),
                52,
                "Modifier Group 4, value 101: the table names it `LU`; nvdisasm prints `NA`"
                    .to_string()
            ),
        ]
    );
    for f in &names {
        assert_eq!(f["bits"], serde_json::json!([84, 85, 86]));
        let printed = if f["line"] == 50 { "LU" } else { "NA" };
        let ev = f["evidence"].as_array().unwrap();
        // The fixed word, then words with the group at that value (bits 84-86).
        assert_eq!(ev[0]["word"], "00000000080000000000000000000f60");
        assert!(ev.len() >= 3);
        for e in &ev[1..] {
            let w = u128::from_str_radix(e["word"].as_str().unwrap(), 16).unwrap();
            let value = (w >> 84) & 7;
            assert_eq!(value, if f["line"] == 50 { 3 } else { 5 });
            let text = e["nvdisasm"].as_str().unwrap();
            let opcode = text
                .split_whitespace()
                .find(|t| !t.starts_with('@'))
                .unwrap();
            assert!(opcode.split('.').any(|m| m == printed), "{e}");
        }
    }
}

#[test]
fn the_bundled_tables_name_every_value_as_nvdisasm_prints_it() {
    // The 9 `modifier-name-differs` findings on the bundled tables are single flips (TLD4's
    // `modi 4` bit 88 drops `R`, which no value of its table names), none from the words.
    let fs = resolve(&[]);
    let names: Vec<String> = fs
        .iter()
        .filter(|f| f["kind"] == "modifier-name-differs")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 9, "{names:#?}");
    assert!(
        names
            .iter()
            .all(|m| m == "table: `modi 4`; nvdisasm disagrees on 1 bit(s) (nvdisasm: `R` -> ``)"),
        "{names:#?}"
    );
}

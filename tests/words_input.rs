//! Issue 12, item 9: words given to `decode` and `check` are strict hex, lines are capped, and a
//! closed stdout ends the command quietly in every output mode.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

const FIXED: &str = "00000000080000000000000000000f66";

fn sass_conform(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running sass-conform");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // The command may stop reading early (that is the point of some tests).
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn words_are_strict_hex() {
    let cases = [
        (
            "+f66",
            "`+f66` is not a hex word: `+` (column 1) is not a hex digit",
        ),
        (
            "0x+f66",
            "`0x+f66` is not a hex word: `+` (column 3) is not a hex digit",
        ),
        (
            "f_66",
            "`f_66` is not a hex word: `_` (column 2) is not a hex digit",
        ),
        ("0x", "`0x`: no hex digits"),
        (
            "111111111111111111111111111111111",
            "`111111111111111111111111111111111`: too long: 33 digits, at most 32",
        ),
    ];
    for cmd in ["decode", "check"] {
        for (word, msg) in cases {
            let o = sass_conform(&[cmd, "--arch", "SM100", word], b"");
            assert_eq!(o.status.code(), Some(2), "{cmd} {word}");
            assert_eq!(stderr(&o), format!("sass-conform: error: {msg}\n"));
            assert!(o.stdout.is_empty());
        }
    }
    // `0x` and either case are fine.
    let o = sass_conform(
        &[
            "decode",
            "--arch",
            "SM100",
            "0X00000000080000000000000000000F66",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with(&format!("{FIXED}\t")),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn stdin_words_name_their_line() {
    let input = format!("# words\n{FIXED}\n\n+f66\n{FIXED}\n");
    let o = sass_conform(&["decode", "--arch", "SM100", "-"], input.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "sass-conform: error: stdin:4: `+f66` is not a hex word: `+` (column 1) is not a hex \
         digit\n"
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);

    let o = sass_conform(&["check", "--arch", "SM100", "-"], b"f66\n\xff\n");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "sass-conform: error: stdin:2: not UTF-8 (byte 0xff at byte 1 of the line)\n"
    );
}

#[test]
fn stdin_words_over_many_blocks_print_in_input_order() {
    // 40,000 words (1.3 MB: five 256 KiB blocks, formatted on several threads), each line
    // distinct, then a bad line in the last block and words after it.
    let words: Vec<String> = (0..40_000u64)
        .map(|i| format!("{:016x}{:016x}", i * 0x9e37_79b9_7f4a_7c15, i))
        .collect();
    let mut input = words.join("\n");
    input.push_str("\nnot-a-word\n");
    input.push_str(&words[..100].join("\n"));
    let o = sass_conform(&["decode", "--arch", "SM100", "-"], input.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "sass-conform: error: stdin:40001: `not-a-word` is not a hex word: `n` (column 1) is \
         not a hex digit\n"
    );
    let out = String::from_utf8(o.stdout).unwrap();
    let printed: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(printed, words);
    // The same lines as the words one by one (the first and last of each thousand).
    let lines: Vec<&str> = out.lines().collect();
    for i in (0..40_000).step_by(999) {
        let one = sass_conform(&["decode", "--arch", "SM100", &words[i]], b"");
        assert_eq!(
            String::from_utf8(one.stdout).unwrap(),
            format!("{}\n", lines[i])
        );
    }
}

#[test]
fn a_long_line_is_refused_quoting_80_characters() {
    // 10 MB on one line, then a newline.
    let mut input = vec![b'a'; 10 << 20];
    input.push(b'\n');
    let o = sass_conform(&["decode", "--arch", "SM100", "-"], &input);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "sass-conform: error: stdin:1: line longer than 4096 bytes, starting `{}…`\n",
            "a".repeat(80)
        )
    );
    // A line of 4096 bytes is read (and refused as a word, quoted short).
    let mut input = vec![b'b'; 4096];
    input.push(b'\n');
    let o = sass_conform(&["decode", "--arch", "SM100", "-"], &input);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "sass-conform: error: stdin:1: `{}…`: too long: 4096 digits, at \
             most 32\n",
            "b".repeat(80)
        )
    );
}

#[test]
fn an_endless_line_without_newline_ends_after_4_kib() {
    // 64 MiB offered without a newline: the command refuses after the first 4 KiB and exits,
    // without reading (or keeping) the rest.
    let input = vec![b'0'; 64 << 20];
    let o = sass_conform(&["check", "--arch", "SM100", "-"], &input);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "sass-conform: error: stdin:1: line longer than 4096 bytes, starting `{}…`\n",
            "0".repeat(80)
        )
    );
}

/// Runs `args` on many words, reads one line of stdout and closes it: the command must end
/// with exit 0 and print nothing on stderr.
fn closed_pipe(args: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sass-conform"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = format!("{FIXED}\n");
        for _ in 0..20_000 {
            if input.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains(FIXED), "{args:?}: {first}");
    drop(out);
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    assert_eq!(stderr(&o), "", "{args:?}");
}

#[test]
fn a_closed_stdout_is_quiet_in_every_mode() {
    closed_pipe(&["decode", "--arch", "SM100", "-"]);
    closed_pipe(&["decode", "--json", "--arch", "SM100", "-"]);
    closed_pipe(&["check", "--arch", "SM100", "-"]);
    closed_pipe(&["check", "--json", "--arch", "SM100", "-"]);
}

//! `sass-conform` command line: spec, decode, encode, check, oracle record, diff.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sass-conform: error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

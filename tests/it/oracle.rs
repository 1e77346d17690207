//! Differential test against the reference implementation.
//!
//! `tests/oracle/gen.mjs` writes random native stores and `session-ref`
//! command lines from fixed seeds; `tests/oracle/oracle.mjs` computes what
//! each must print by running the REAL reference code (the seed's compiled
//! `lib/index.js`, loaded in place from `../shared/seed`) over an independent
//! JavaScript reading of the native store (SPEC §3). This test runs our binary
//! on every case and requires the same stdout bytes, exit status and error code.
//!
//! When `node` or the seed is missing: fails under CI (`CI` set), else
//! prints a `SKIPPED:` line that `cargo test` shows. `ORACLE_CASES=N`
//! runs about N cases instead of the default; `ORACLE_SEED=S` starts the
//! seeds at S. On a mismatch the first failing case is shrunk (store files,
//! then their lines) and printed as a runnable repro; the work directory is
//! kept.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::hermetic;
use crate::support::prerequisite;

/// Cases per generated store.
const CASES_PER_STORE: usize = 24;
/// Cases run by default (about 25 s in a debug build on two cores).
const DEFAULT_CASES: usize = 2400;
/// Failures printed in full.
const SHOWN: usize = 6;

/// One command line to run on both sides.
#[derive(Debug, Clone)]
struct Case {
    name: String,
    args: Vec<String>,
    stdin: Option<String>,
}

/// What one side printed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    stdout: Vec<u8>,
    exit: i32,
    /// The `SESSION_REFERENCE_*` code of a failure.
    code: Option<String>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn seed_file() -> PathBuf {
    std::env::var_os("ORACLE_SEED_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared/seed/lib/index.js"))
}

fn node_works() -> bool {
    Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Run `program args` in `dir` with `stdin`; stdout, stderr and exit code.
fn run(mut command: Command, dir: &Path, stdin: Option<&str>) -> (Vec<u8>, Vec<u8>, i32) {
    command
        .current_dir(dir)
        .env("ORACLE_SEED_FILE", seed_file())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.unwrap_or("").as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("stdin writer");
    (out.stdout, out.stderr, out.status.code().unwrap_or(-1))
}

fn node(script: &str) -> Command {
    let mut command = Command::new("node");
    command.arg(repo().join("tests/oracle").join(script));
    command
}

/// Generate the stores and cases of `seed` under `dir`.
fn generate(dir: &Path, seed: usize, stores: usize) -> Vec<Case> {
    let mut command = node("gen.mjs");
    command.args([
        "--seed",
        &seed.to_string(),
        "--stores",
        &stores.to_string(),
        "--cases",
        &CASES_PER_STORE.to_string(),
        "--out",
    ]);
    command.arg(dir);
    let (_, stderr, exit) = run(command, dir, None);
    assert_eq!(
        exit,
        0,
        "gen.mjs failed: {}",
        String::from_utf8_lossy(&stderr)
    );
    let text =
        std::fs::read_to_string(dir.join(format!("cases-{seed}.jsonl"))).expect("cases file");
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("case line");
            Case {
                name: v["name"].as_str().expect("name").to_owned(),
                args: v["args"]
                    .as_array()
                    .expect("args")
                    .iter()
                    .map(|a| a.as_str().expect("arg").to_owned())
                    .collect(),
                stdin: v.get("stdin").and_then(Value::as_str).map(str::to_owned),
            }
        })
        .collect()
}

/// The reference's outcome of every case, from one batch run of the oracle.
fn oracle(dir: &Path, cases: &[Case]) -> Vec<Outcome> {
    let batch: String = cases
        .iter()
        .map(|c| {
            let mut v = serde_json::json!({ "args": c.args });
            if let Some(stdin) = &c.stdin {
                v["stdin"] = Value::String(stdin.clone());
            }
            format!("{v}\n")
        })
        .collect();
    let mut command = node("oracle.mjs");
    command.arg("--batch");
    let (stdout, stderr, exit) = run(command, dir, Some(&batch));
    assert_eq!(
        exit,
        0,
        "oracle.mjs failed: {}",
        String::from_utf8_lossy(&stderr)
    );
    let text = String::from_utf8(stdout).expect("oracle output is UTF-8");
    let outcomes: Vec<Outcome> = text
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("oracle line");
            Outcome {
                stdout: v["stdout"].as_str().expect("stdout").as_bytes().to_vec(),
                exit: v["exit"].as_i64().expect("exit") as i32,
                code: v["code"].as_str().map(str::to_owned),
            }
        })
        .collect();
    assert_eq!(outcomes.len(), cases.len(), "one oracle line per case");
    outcomes
}

/// Our binary's outcome of one case.
fn ours(dir: &Path, case: &Case) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_session-ref"));
    // The title index goes with the work directory, not the user's cache.
    hermetic::isolate(&mut command, &dir.join(".home"))
        .args(&case.args)
        .env("XDG_CACHE_HOME", dir.join(".title-index"));
    let (stdout, stderr, exit) = run(command, dir, case.stdin.as_deref());
    let stderr = String::from_utf8_lossy(&stderr);
    let code = stderr
        .split_whitespace()
        .map(|w| w.trim_end_matches(':'))
        .find(|w| w.starts_with("SESSION_REFERENCE_"))
        .map(str::to_owned);
    Outcome {
        stdout,
        exit,
        code: if exit == 0 { None } else { code },
    }
}

/// Shell-quote one argument.
fn quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=/.,:@".contains(&b))
    {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

fn describe(outcome: &Outcome) -> String {
    format!(
        "exit {} code {:?}, {} bytes of stdout",
        outcome.exit,
        outcome.code,
        outcome.stdout.len()
    )
}

/// Where two outputs part, with some context of each.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let at = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let window = |bytes: &[u8]| {
        let from = at.saturating_sub(120);
        let to = (at + 120).min(bytes.len());
        format!("{:?}", String::from_utf8_lossy(&bytes[from..to]))
    };
    format!(
        "first difference at byte {at}\n  expected …{}…\n  actual   …{}…",
        window(expected),
        window(actual)
    )
}

/// Every `*.jsonl` file named by the case's `--store` roots.
fn store_files(case: &Case) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let mut args = case.args.iter();
    while let Some(arg) = args.next() {
        if arg == "--store" {
            roots.extend(args.next().map(PathBuf::from));
        }
    }
    let mut files = Vec::new();
    let mut pending = roots;
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    files
}

fn mismatch(dir: &Path, case: &Case) -> bool {
    let expected = &oracle(dir, std::slice::from_ref(case))[0];
    expected != &ours(dir, case)
}

/// Shrink a failing case in place: drop store files, then lines of what is
/// left, while the two sides still disagree (bounded in time).
fn shrink(dir: &Path, case: &Case) {
    let deadline = Instant::now() + Duration::from_secs(90);
    for file in store_files(case) {
        if Instant::now() > deadline {
            return;
        }
        let saved = std::fs::read(&file).expect("read store file");
        std::fs::remove_file(&file).expect("remove store file");
        if !mismatch(dir, case) {
            std::fs::write(&file, saved).expect("restore store file");
        }
    }
    for file in store_files(case) {
        let text = std::fs::read(&file).expect("read store file");
        let mut lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let mut i = 1; // keep the header
        while i < lines.len() && Instant::now() < deadline {
            let removed = lines.remove(i);
            std::fs::write(&file, lines.concat()).expect("write store file");
            if mismatch(dir, case) {
                continue;
            }
            lines.insert(i, removed);
            i += 1;
        }
        std::fs::write(&file, lines.concat()).expect("write store file");
    }
}

fn repro(dir: &Path, case: &Case) -> String {
    let mut out = String::new();
    let args: Vec<String> = case.args.iter().map(|a| quote(a)).collect();
    let stdin = case
        .stdin
        .as_ref()
        .map(|s| format!("printf '%s' {} | ", quote(s)))
        .unwrap_or_default();
    out.push_str(&format!(
        "  cd {}\n  {stdin}node {}/tests/oracle/oracle.mjs {}\n  {stdin}{} {}\n",
        quote(&dir.display().to_string()),
        repo().display(),
        args.join(" "),
        env!("CARGO_BIN_EXE_session-ref"),
        args.join(" ")
    ));
    for file in store_files(case) {
        let text = std::fs::read(&file).unwrap_or_default();
        let shown = String::from_utf8_lossy(&text[..text.len().min(3000)]).into_owned();
        out.push_str(&format!(
            "  --- {} ({} bytes)\n{}\n",
            file.display(),
            text.len(),
            shown
        ));
    }
    out
}

#[test]
fn matches_the_reference_on_generated_cases() {
    let seed = seed_file();
    if !seed.exists() || !node_works() {
        prerequisite::missing(
            "differential test",
            &format!(
                "needs `node` 20+ and the seed at {} (ORACLE_SEED_FILE)",
                seed.display()
            ),
        );
        return;
    }
    let wanted = env_number("ORACLE_CASES", DEFAULT_CASES).max(1);
    let first_seed = env_number("ORACLE_SEED", 1);
    let stores = wanted.div_ceil(CASES_PER_STORE);
    let work = tempfile::Builder::new()
        .prefix("session-ref-oracle-")
        .tempdir()
        .expect("tempdir");
    let dir = work.path().to_path_buf();

    // Several seeds, so each seed's stores stay small and varied.
    let mut cases = Vec::new();
    let per_seed = 8;
    for (i, start) in (0..stores).step_by(per_seed).enumerate() {
        cases.extend(generate(&dir, first_seed + i, per_seed.min(stores - start)));
    }
    let expected = oracle(&dir, &cases);
    assert!(
        expected
            .iter()
            .all(|e| e.code.as_deref() != Some("ORACLE_INTERNAL")),
        "the oracle failed internally on a case: {:?}",
        cases
            .iter()
            .zip(&expected)
            .find(|(_, e)| e.code.as_deref() == Some("ORACLE_INTERNAL"))
            .map(|(c, _)| (&c.name, &c.args))
    );

    let next = AtomicUsize::new(0);
    let failures: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let actual = ours(&dir, case);
                if actual != expected[i] {
                    failures.lock().expect("failures").push((i, actual));
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("failures");
    failures.sort_by_key(|(i, _)| *i);
    eprintln!(
        "differential test: {} cases, {} passed, {} failed",
        cases.len(),
        cases.len() - failures.len(),
        failures.len()
    );
    if failures.is_empty() {
        return;
    }

    let kept = work.keep();
    let mut report = String::new();
    for (i, actual) in failures.iter().take(SHOWN) {
        let case = &cases[*i];
        report.push_str(&format!(
            "\n== {}\n  args {:?}\n  stdin {:?}\n  expected {}\n  actual   {}\n  {}\n",
            case.name,
            case.args,
            case.stdin,
            describe(&expected[*i]),
            describe(actual),
            first_difference(&expected[*i].stdout, &actual.stdout)
        ));
    }
    report.push_str("\n== all failures\n");
    for (i, actual) in &failures {
        report.push_str(&format!(
            "  {}: expected {}; actual {}; args {:?}\n",
            cases[*i].name,
            describe(&expected[*i]),
            describe(actual),
            cases[*i].args
        ));
    }
    let (first, _) = &failures[0];
    if std::env::var_os("ORACLE_NO_SHRINK").is_none() {
        shrink(&kept, &cases[*first]);
    }
    report.push_str(&format!(
        "\n== minimal repro of {} (store shrunk in place):\n{}",
        cases[*first].name,
        repro(&kept, &cases[*first])
    ));
    panic!(
        "{} of {} cases differ from the reference; work directory kept at {}\n{report}",
        failures.len(),
        cases.len(),
        kept.display()
    );
}

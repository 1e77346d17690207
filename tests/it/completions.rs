//! The generated completion scripts, run by the shells they are for: each
//! script is sourced and asked for the candidates of a command line, as a
//! Tab would ask (bash through its completion function, zsh through its
//! completion system in a pseudo-terminal, fish through `complete -C`).
//! Without zsh or fish: fails under CI (`CI` set), else prints a
//! `SKIPPED:` line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_session-ref");
const DEADLINE: Duration = Duration::from_secs(30);

/// A temporary directory holding the three scripts, with a file in it so
/// that a completion falling back to file names shows.
struct Scripts {
    dir: tempfile::TempDir,
}

impl Scripts {
    fn new() -> Scripts {
        let dir = tempfile::tempdir().unwrap();
        for (shell, name) in [
            ("bash", "session-ref.bash"),
            ("zsh", "_session-ref"),
            ("fish", "session-ref.fish"),
        ] {
            let out = Command::new(BIN)
                .args(["completions", shell])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::write(dir.path().join(name), out.stdout).unwrap();
        }
        std::fs::write(dir.path().join("decoy-file"), "").unwrap();
        Scripts { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `PATH` with the binary's directory first (zsh and fish complete a
    /// command they can find).
    fn path_var() -> String {
        let bin_dir = Path::new(BIN).parent().unwrap();
        let rest = std::env::var("PATH").unwrap_or_default();
        format!("{}:{rest}", bin_dir.display())
    }

    /// What bash's completion function offers for `words`, the last being
    /// the word under the cursor.
    fn bash(&self, words: &[&str]) -> Vec<String> {
        let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
        let cword = words.len() - 1;
        let previous = if cword > 0 { words[cword - 1] } else { "" };
        let script = format!(
            "source {script}\n\
             COMP_WORDS=({words}); COMP_CWORD={cword}\n\
             _session__ref session-ref {cur} {prev}\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
            script = shell_quote(&self.path("session-ref.bash").to_string_lossy()),
            words = quoted.join(" "),
            cur = shell_quote(words[cword]),
            prev = shell_quote(previous),
        );
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &script])
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        lines(&out.stdout)
    }

    /// What fish offers for the command line `line`.
    fn fish(&self, line: &str) -> Vec<String> {
        let script = format!(
            "source {}; complete -C {}",
            shell_quote(&self.path("session-ref.fish").to_string_lossy()),
            shell_quote(line)
        );
        let out = Command::new("fish")
            .args(["--no-config", "-c", &script])
            .env("PATH", Self::path_var())
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Each line is a candidate, then a tab and its description.
        lines(&out.stdout)
            .into_iter()
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .collect()
    }

    /// What zsh's completion system offers for the command line `line`:
    /// an interactive zsh in a pseudo-terminal (`zsh/zpty`) loads the
    /// script, records every candidate handed to `compadd`, and gets the
    /// line followed by a Tab.
    fn zsh(&self, line: &str) -> Vec<String> {
        let out = self.dir.path().join("zsh-hits");
        for file in ["zsh-hits", "zsh-hits.ready", "zsh-hits.done"] {
            let _ = std::fs::remove_file(self.dir.path().join(file));
        }
        let mut child = Command::new("zsh")
            .args(["-f", "-c", ZSH_DRIVER, "zsh"])
            .arg(self.path("_session-ref"))
            .arg(&out)
            .arg(line)
            .env("PATH", Self::path_var())
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > DEADLINE {
                let _ = child.kill();
                panic!("zsh did not finish completing {line:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let output = child.wait_with_output().unwrap();
        assert!(
            status.success(),
            "zsh driver failed ({status}): {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        lines(&std::fs::read(&out).unwrap_or_default())
    }
}

/// Drives an interactive zsh: `$1` the script, `$2` where candidates go,
/// `$3` the command line. The inner shell marks when it is ready, and a
/// widget bound to ctrl-x ctrl-p runs the completion a Tab runs, then
/// marks that it returned, so nothing waits a fixed time (and no key
/// typed ahead changes what the completion does).
const ZSH_DRIVER: &str = r#"
zmodload zsh/zpty || exit 3
script=$1 out=$2 line=$3
wait_for() { local i; for i in {1..600}; do [[ -e $1 ]] && return 0; sleep 0.05; done; return 1 }
zpty z zsh -f -i
zpty -w z "autoload -Uz compinit && compinit -u -D"
zpty -w z "source ${(q)script}"
zpty -w z "compadd() { local -a __hits; builtin compadd -O __hits \"\$@\"; print -rl -- \$__hits >> ${(q)out}; builtin compadd \"\$@\" }"
zpty -w z "probe() { zle complete-word; : > ${(q)out}.done }; zle -N probe; bindkey '^X^P' probe"
zpty -w z ": > ${(q)out}; : > ${(q)out}.ready"
wait_for $out.ready || { print -u2 "the inner zsh never got ready"; exit 4 }
zpty -w -n z "$line"$'\C-x\C-p'
wait_for $out.done || { print -u2 "the completion never returned"; exit 5 }
zpty -d z
"#;

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn has(candidates: &[String], wanted: &str) -> bool {
    candidates.iter().any(|c| c == wanted)
}

fn available(shell: &str, test: &str) -> bool {
    let found = Command::new(shell)
        .args(["-c", "exit 0"])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        prerequisite::missing(test, &format!("{shell} is not installed"));
    }
    found
}

#[test]
fn bash_completes_below_the_top_level() {
    let scripts = Scripts::new();
    let top = scripts.bash(&["session-ref", "cand"]);
    assert_eq!(top, ["candidates"]);
    let options = scripts.bash(&["session-ref", "candidates", "--"]);
    assert!(has(&options, "--sort"), "{options:?}");
    assert!(has(&options, "--json"), "{options:?}");
    let values = scripts.bash(&["session-ref", "candidates", "--sort", ""]);
    assert_eq!(values, ["created", "updated"]);
    let nested = scripts.bash(&["session-ref", "hook", "install", "--"]);
    assert!(has(&nested, "--print"), "{nested:?}");
    let agents = scripts.bash(&["session-ref", "hook", "install", ""]);
    assert!(
        has(&agents, "claude") && has(&agents, "codex"),
        "{agents:?}"
    );
    let shells = scripts.bash(&["session-ref", "completions", "z"]);
    assert_eq!(shells, ["zsh"]);
}

/// `--preview-window` takes a spec, never a file: its words are offered
/// (not the decoy file); `man` takes command names, so they are offered,
/// below the top level too (`man hook install`).
#[test]
fn bash_offers_preview_words_and_man_commands() {
    let scripts = Scripts::new();
    let windows = scripts.bash(&["session-ref", "--preview-window", ""]);
    assert_eq!(windows, ["right", "down", "hidden"]);
    let picked = scripts.bash(&["session-ref", "pick", "--preview-window", "d"]);
    assert_eq!(picked, ["down"]);
    let pages = scripts.bash(&["session-ref", "man", ""]);
    for command in ["candidates", "search", "hook", "mcp", "install"] {
        assert!(has(&pages, command), "{command}: {pages:?}");
    }
    assert!(!has(&pages, "decoy-file"), "{pages:?}");
    assert!(!has(&pages, "help"), "{pages:?}");
    let search = scripts.bash(&["session-ref", "man", "sea"]);
    assert_eq!(search, ["search"]);
    let nested = scripts.bash(&["session-ref", "man", "hook", "inst"]);
    assert_eq!(nested, ["install"]);
}

#[test]
fn zsh_completes_below_the_top_level() {
    if !available("zsh", "zsh_completes_below_the_top_level") {
        return;
    }
    let scripts = Scripts::new();
    let options = scripts.zsh("session-ref candidates --so");
    assert!(has(&options, "--sort"), "{options:?}");
    let values = scripts.zsh("session-ref candidates --sort ");
    assert!(
        has(&values, "created") && has(&values, "updated"),
        "{values:?}"
    );
    assert!(!has(&values, "decoy-file"), "{values:?}");
    let nested = scripts.zsh("session-ref hook install --pr");
    assert!(has(&nested, "--print"), "{nested:?}");
}

#[test]
fn fish_completes_below_the_top_level() {
    if !available("fish", "fish_completes_below_the_top_level") {
        return;
    }
    let scripts = Scripts::new();
    let options = scripts.fish("session-ref candidates --so");
    assert!(has(&options, "--sort"), "{options:?}");
    let values = scripts.fish("session-ref candidates --sort ");
    assert_eq!(values, ["created", "updated"]);
    let nested = scripts.fish("session-ref hook install --pr");
    assert!(has(&nested, "--print"), "{nested:?}");
}

//! `--tmux [POSITION][,SIZE%][,SIZE%]`: run the picker in a tmux popup over
//! the current pane, as fzf's `--tmux` does. The picker re-runs itself
//! inside `tmux display-popup` with the same options, its result pasted
//! into the pane it was started from (`--tmux-paste`, unless `--output` or
//! `--exec` says otherwise); this process waits and exits with the popup's
//! exit code. Outside tmux the option is ignored, as in fzf.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// Set inside the popup, so the picker there does not open another one.
pub const INSIDE: &str = "SESSION_REF_IN_POPUP";

/// Environment the picker reads that a popup (started by the tmux server,
/// with the server's environment) would otherwise lose.
const PASSED_ENV: &[&str] = &[
    "HYDRA_SESSIONS",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "PI_CODING_AGENT_DIR",
    "QWEN_HOME",
    "QWEN_RUNTIME_DIR",
    // Where the popup's run keeps its title index, search index and drafts.
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "SESSION_REF_CACHE_DIR",
    "NO_COLOR",
    "VISUAL",
    "EDITOR",
    "HOME",
];

/// Where the popup goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Centred in the window.
    Center,
    /// Along the top edge.
    Top,
    /// Along the bottom edge.
    Bottom,
    /// Along the left edge.
    Left,
    /// Along the right edge.
    Right,
}

/// A parsed `--tmux` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PopupSpec {
    /// Where.
    pub position: Position,
    /// Width, percent of the window.
    pub width: u8,
    /// Height, percent of the window.
    pub height: u8,
}

impl PopupSpec {
    /// Parse `[center|top|bottom|left|right][,SIZE%][,SIZE%]` as fzf does:
    /// for `center` the sizes are width then height (one size is both);
    /// for `top`/`bottom` the first is the height (full width unless a
    /// second is given), for `left`/`right` the first is the width.
    pub fn parse(text: &str) -> std::result::Result<PopupSpec, String> {
        let mut parts = text.split(',').map(str::trim).peekable();
        let position = match parts.peek().copied() {
            Some("center") | Some("") => Some(Position::Center),
            Some("top") => Some(Position::Top),
            Some("bottom") => Some(Position::Bottom),
            Some("left") => Some(Position::Left),
            Some("right") => Some(Position::Right),
            _ => None,
        };
        if position.is_some() {
            parts.next();
        }
        let position = position.unwrap_or(Position::Center);
        let sizes: Vec<u8> = parts
            .map(|p| {
                let digits = p.strip_suffix('%').unwrap_or(p);
                digits
                    .parse::<u8>()
                    .ok()
                    .filter(|n| (1..=100).contains(n))
                    .ok_or_else(|| {
                        format!("--tmux: {p:?} is not a size from 1% to 100% (in {text:?})")
                    })
            })
            .collect::<std::result::Result<_, _>>()?;
        if sizes.len() > 2 {
            return Err(format!("--tmux: at most two sizes (in {text:?})"));
        }
        let (first, second) = (sizes.first().copied(), sizes.get(1).copied());
        let (width, height) = match position {
            Position::Center => {
                let w = first.unwrap_or(90);
                (w, second.or(first).unwrap_or(85))
            }
            Position::Top | Position::Bottom => (second.unwrap_or(100), first.unwrap_or(50)),
            Position::Left | Position::Right => (first.unwrap_or(50), second.unwrap_or(100)),
        };
        Ok(PopupSpec {
            position,
            width,
            height,
        })
    }

    /// `display-popup`'s placement and size options.
    fn placement(self) -> Vec<String> {
        let (x, y) = match self.position {
            Position::Center => ("C", "C"),
            Position::Top => ("C", "0"),
            Position::Bottom => ("C", "S"),
            Position::Left => ("0", "C"),
            Position::Right => ("R", "C"),
        };
        vec![
            "-x".into(),
            x.into(),
            "-y".into(),
            y.into(),
            "-w".into(),
            format!("{}%", self.width),
            "-h".into(),
            format!("{}%", self.height),
        ]
    }
}

/// The picker's own arguments without `--tmux` (and the value clap gave
/// it, `explicit`, when it came as the next argument).
pub fn without_tmux(args: &[OsString], explicit: Option<&str>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut skip_value = false;
    for arg in args {
        if skip_value {
            skip_value = false;
            if explicit.is_some_and(|v| arg.to_str() == Some(v)) {
                continue;
            }
        }
        match arg.to_str() {
            Some("--tmux") => skip_value = explicit.is_some(),
            Some(a) if a.starts_with("--tmux=") => {}
            _ => out.push(arg.clone()),
        }
    }
    out
}

/// The whole `tmux display-popup` command line: the popup runs `exe` with
/// `args` in `dir`, writes its exit code to `status`, and pastes into
/// `pane` when `paste`.
pub fn popup_command(
    spec: PopupSpec,
    exe: &Path,
    args: &[OsString],
    dir: &Path,
    pane: Option<&str>,
    status: &Path,
    env: &[(String, String)],
) -> Vec<OsString> {
    let mut cmd: Vec<OsString> = vec!["display-popup".into(), "-E".into()];
    cmd.extend(spec.placement().into_iter().map(OsString::from));
    cmd.push("-d".into());
    cmd.push(dir.into());
    for (name, value) in env {
        cmd.push("-e".into());
        cmd.push(format!("{name}={value}").into());
    }
    cmd.push("-e".into());
    cmd.push(format!("{INSIDE}=1").into());
    // tmux runs the command through the shell: every word is quoted.
    let mut line = String::new();
    let mut word = |w: &std::ffi::OsStr| {
        line.push_str(&shell_quote(&w.to_string_lossy()));
        line.push(' ');
    };
    word(exe.as_os_str());
    for arg in args {
        word(arg);
    }
    if let Some(pane) = pane {
        word("--tmux-paste".as_ref());
        word(pane.as_ref());
    }
    line.push_str(&format!(
        "; echo $? > {}",
        shell_quote(&status.to_string_lossy())
    ));
    cmd.push(line.into());
    cmd
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Open the popup and wait for it; its exit code. `paste` is false when
/// the options already name where the result goes.
pub fn run(spec: PopupSpec, explicit: Option<&str>, paste: bool) -> Result<i32> {
    let fail = |what: String| Error::invalid_config(format!("--tmux: {what}"));
    let exe = std::env::current_exe().map_err(|e| fail(format!("cannot find myself: {e}")))?;
    let dir = std::env::current_dir().map_err(|e| fail(format!("no current directory: {e}")))?;
    let pane = match std::env::var("TMUX_PANE") {
        Ok(pane) if !pane.is_empty() => pane,
        _ => {
            let out = Command::new("tmux")
                .args(["display-message", "-p", "#{pane_id}"])
                .output()
                .map_err(|e| fail(format!("cannot run tmux: {e}")))?;
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        }
    };
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let args = without_tmux(&args, explicit);
    let env: Vec<(String, String)> = PASSED_ENV
        .iter()
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
        .collect();
    let status = tempfile_path();
    let command = popup_command(
        spec,
        &exe,
        &args,
        &dir,
        paste.then_some(pane.as_str()),
        &status,
        &env,
    );
    let ran = Command::new("tmux")
        .args(&command)
        .status()
        .map_err(|e| fail(format!("cannot run tmux: {e}")));
    let code = std::fs::read_to_string(&status)
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok());
    let _ = std::fs::remove_file(&status);
    let ran = ran?;
    match code {
        Some(code) => Ok(code),
        None if ran.success() => Ok(130),
        None => Err(fail(format!("tmux display-popup failed ({ran})"))),
    }
}

fn tempfile_path() -> PathBuf {
    std::env::temp_dir().join(format!("session-ref-popup-{}.status", std::process::id()))
}

/// Whether `--tmux` should open a popup: inside tmux, not already in one.
pub fn wanted() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()) && std::env::var_os(INSIDE).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_as_fzf_reads_them() {
        let p = |t| PopupSpec::parse(t).unwrap();
        assert_eq!(
            p("center"),
            PopupSpec {
                position: Position::Center,
                width: 90,
                height: 85
            }
        );
        assert_eq!((p("center,70%").width, p("center,70%").height), (70, 70));
        assert_eq!((p("80%,60%").width, p("80%,60%").height), (80, 60));
        let bottom = p("bottom,40%");
        assert_eq!(
            (bottom.position, bottom.width, bottom.height),
            (Position::Bottom, 100, 40)
        );
        let right = p("right,30%");
        assert_eq!((right.width, right.height), (30, 100));
        assert!(PopupSpec::parse("middle").is_err());
        assert!(PopupSpec::parse("center,0%").is_err());
        assert!(PopupSpec::parse("center,1,2,3").is_err());
    }

    #[test]
    fn the_popup_reruns_the_picker_without_tmux_and_pastes() {
        let args: Vec<OsString> = ["--store", "/s", "--tmux", "top,40%", "--query", "it's"]
            .iter()
            .map(OsString::from)
            .collect();
        let rest = without_tmux(&args, Some("top,40%"));
        assert_eq!(rest, ["--store", "/s", "--query", "it's"]);
        let bare: Vec<OsString> = ["--tmux", "--query", "x"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(without_tmux(&bare, None), ["--query", "x"]);
        let eq: Vec<OsString> = ["--tmux=center", "x"].iter().map(OsString::from).collect();
        assert_eq!(without_tmux(&eq, Some("center")), ["x"]);

        let spec = PopupSpec::parse("top,40%").unwrap();
        let env = [("NO_COLOR".to_owned(), "1".to_owned())];
        let cmd = popup_command(
            spec,
            Path::new("/bin/session-ref"),
            &rest,
            Path::new("/w"),
            Some("%3"),
            Path::new("/tmp/st"),
            &env,
        );
        let cmd: Vec<String> = cmd
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            cmd[..12],
            [
                "display-popup",
                "-E",
                "-x",
                "C",
                "-y",
                "0",
                "-w",
                "100%",
                "-h",
                "40%",
                "-d",
                "/w"
            ]
        );
        assert_eq!(
            cmd[12..16],
            ["-e", "NO_COLOR=1", "-e", "SESSION_REF_IN_POPUP=1"]
        );
        assert_eq!(
            cmd[16],
            "'/bin/session-ref' '--store' '/s' '--query' 'it'\\''s' '--tmux-paste' '%3' ; echo $? > '/tmp/st'"
        );
    }
}

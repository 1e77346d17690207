//! `--tmux [POSITION][,SIZE%][,SIZE%]`: draw the picker in a tmux popup
//! over the current pane, as fzf's `--tmux` does. `--tmux` decides only
//! where the picker draws: the picker re-runs itself inside `tmux
//! display-popup` with the same options, hands its result back through a
//! private channel (files in a directory only this user can open), and this
//! process delivers it exactly as without `--tmux` (stdout, `--output`,
//! `--exec`, `--tmux-paste`), once the popup has closed. Nothing goes
//! through a pane: a shell reading it would run session text. Outside tmux
//! the option is ignored, as in fzf.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use crate::config::{PopupSpec, Position};
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

impl PopupSpec {
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

/// The files of the private directory the popup's picker reports through.
/// The directory is made with mode 0700 under a random name, the files the picker
/// writes are 0600 and created new: no one else can read or plant them.
pub struct Channel {
    dir: tempfile::TempDir,
}

/// The script the popup runs (with `sh`, whatever the user's tmux shell).
const SCRIPT: &str = "run.sh";
/// The popup picker's exit code, written by the script.
const STATUS: &str = "status";
/// The popup picker's stderr, relayed by the caller.
const STDERR: &str = "stderr";
/// The submitted result; written last, so that it means "submitted".
const RESULT: &str = "result";
/// The prompt as it stood, for a draft when delivery fails.
const PROMPT: &str = "prompt";
/// The draft the prompt was restored from, removed once delivered.
const RESTORED: &str = "restored";
/// Present when the popup's picker started an agent (resume, hand-off)
/// instead of submitting.
const LAUNCHED: &str = "launched";

impl Channel {
    /// A new private directory under the temporary directory.
    pub fn create() -> std::io::Result<Channel> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("session-ref-popup-");
        // Created with this mode, never wider for a moment.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(
            session_ref_stores::private::DIR_MODE,
        ));
        let dir = builder.tempdir()?;
        Ok(Channel { dir })
    }

    /// The directory, passed to the popup's picker as `--popup-channel`.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// What the popup's picker submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// The result to deliver.
    pub text: String,
    /// The prompt it came from, to save as a draft if delivery fails.
    pub prompt: String,
    /// The draft the prompt was restored from.
    pub restored: Option<PathBuf>,
}

/// How the popup ended.
#[derive(Debug)]
pub struct Outcome {
    /// The popup picker's exit code (130 when the popup closed without
    /// one).
    pub code: i32,
    /// What it wrote on stderr (notes, errors), for the caller's stderr.
    pub stderr: Vec<u8>,
    /// Its result, when it submitted.
    pub submitted: Option<Submitted>,
    /// Whether it started an agent (resume, hand-off) instead.
    pub launched: bool,
}

/// In the popup: hand `submitted` back through the channel directory `dir`.
pub fn send(dir: &Path, submitted: &Submitted) -> std::io::Result<()> {
    write_private(&dir.join(PROMPT), submitted.prompt.as_bytes())?;
    if let Some(restored) = &submitted.restored {
        write_private(&dir.join(RESTORED), os_bytes(restored.as_os_str()))?;
    }
    write_private(&dir.join(RESULT), submitted.text.as_bytes())
}

/// In the popup: tell the caller through `dir` that an agent was started
/// (in a tmux window of its own), so there is no result to deliver.
pub fn launched(dir: &Path) -> std::io::Result<()> {
    write_private(&dir.join(LAUNCHED), b"")
}

/// Create `path` (it must not exist), readable by this user alone.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = session_ref_stores::private::create_new(path)?;
    file.write_all(bytes)?;
    file.flush()
}

#[cfg(unix)]
fn os_bytes(text: &std::ffi::OsStr) -> &[u8] {
    std::os::unix::ffi::OsStrExt::as_bytes(text)
}

#[cfg(not(unix))]
fn os_bytes(text: &std::ffi::OsStr) -> &[u8] {
    text.to_str().unwrap_or_default().as_bytes()
}

#[cfg(unix)]
fn os_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes))
}

#[cfg(not(unix))]
fn os_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// In the caller, once the popup closed: what came back.
fn receive(dir: &Path, ran: std::process::Output) -> Result<Outcome> {
    let read = |name: &str| std::fs::read(dir.join(name)).ok();
    let stderr = read(STDERR).unwrap_or_default();
    let code = read(STATUS).and_then(|s| String::from_utf8_lossy(&s).trim().parse::<i32>().ok());
    let code = match code {
        Some(code) => code,
        // Closed before the picker ended (killed, or tmux's close key).
        None if ran.status.success() => 130,
        None => {
            let said = String::from_utf8_lossy(&ran.stderr).trim().to_owned();
            return Err(Error::tmux(format!(
                "--tmux: tmux cannot open the popup ({}): {said}",
                ran.status
            )));
        }
    };
    let submitted = match read(RESULT) {
        Some(text) if code == 0 => Some(Submitted {
            text: String::from_utf8(text)
                .map_err(|_| Error::internal("--tmux: the popup's result is not UTF-8"))?,
            prompt: String::from_utf8_lossy(&read(PROMPT).unwrap_or_default()).into_owned(),
            restored: read(RESTORED).map(os_path),
        }),
        _ => None,
    };
    Ok(Outcome {
        code,
        stderr,
        submitted,
        launched: code == 0 && dir.join(LAUNCHED).exists(),
    })
}

/// The script the popup runs: the picker with `args` and the channel,
/// its stdout to `/dev/null` (it draws on `/dev/tty`; its result goes
/// through the channel), its stderr and exit code into the channel.
pub fn script(exe: &Path, args: &[OsString], channel: &Path) -> String {
    let q = |w: &std::ffi::OsStr| shell_quote(&w.to_string_lossy());
    let file = |name: &str| shell_quote(&channel.join(name).to_string_lossy());
    let mut line = q(exe.as_os_str());
    for arg in args {
        line.push(' ');
        line.push_str(&q(arg));
    }
    format!(
        "{line} --popup-channel {} > /dev/null 2> {}\necho $? > {}\n",
        q(channel.as_os_str()),
        file(STDERR),
        file(STATUS)
    )
}

/// The whole `tmux display-popup` command line: the popup runs `script`
/// with `sh` (the user's tmux shell may not be a POSIX one) in `dir`.
pub fn popup_command(
    spec: PopupSpec,
    script: &Path,
    dir: &Path,
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
    cmd.push(format!("sh {}", shell_quote(&script.to_string_lossy())).into());
    cmd
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Open the popup, wait for it to close, and collect what its picker
/// handed back. A tmux that cannot show it (no server, no client) is
/// `SESSION_REFERENCE_TMUX`.
pub fn run(spec: PopupSpec, explicit: Option<&str>) -> Result<Outcome> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::internal(format!("--tmux: cannot find myself: {e}")))?;
    let dir = std::env::current_dir()
        .map_err(|e| Error::internal(format!("--tmux: no current directory: {e}")))?;
    let channel = Channel::create().map_err(|e| {
        Error::internal(format!(
            "--tmux: cannot make a private temporary directory: {e}"
        ))
    })?;
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let args = without_tmux(&args, explicit);
    let env: Vec<(String, String)> = PASSED_ENV
        .iter()
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
        .collect();
    let script_path = channel.path().join(SCRIPT);
    write_private(&script_path, script(&exe, &args, channel.path()).as_bytes())
        .map_err(|e| Error::internal(format!("--tmux: cannot write the popup's script: {e}")))?;
    let ran = Command::new("tmux")
        .args(popup_command(spec, &script_path, &dir, &env))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::tmux(format!("--tmux: cannot run tmux: {e}")))?;
    receive(channel.path(), ran)
}

/// Whether `--tmux` should open a popup: inside tmux, not already in one.
pub fn wanted() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()) && std::env::var_os(INSIDE).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_popup_reruns_the_picker_without_tmux_into_the_channel() {
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
        // Every other picker option reaches the popup's picker.
        let window: Vec<OsString> = ["--tmux", "--preview-window", "down:40%", "--no-mouse"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            without_tmux(&window, None),
            ["--preview-window", "down:40%", "--no-mouse"]
        );

        // Nothing of the result goes to the popup's terminal, let alone a pane.
        assert_eq!(
            script(Path::new("/bin/session-ref"), &rest, Path::new("/tmp/ch")),
            "'/bin/session-ref' '--store' '/s' '--query' 'it'\\''s' --popup-channel '/tmp/ch' \
             > /dev/null 2> '/tmp/ch/stderr'\necho $? > '/tmp/ch/status'\n"
        );

        let spec = PopupSpec::parse("top,40%").unwrap();
        let env = [("NO_COLOR".to_owned(), "1".to_owned())];
        let cmd = popup_command(spec, Path::new("/tmp/ch/run.sh"), Path::new("/w"), &env);
        let cmd: Vec<String> = cmd
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            cmd,
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
                "/w",
                "-e",
                "NO_COLOR=1",
                "-e",
                "SESSION_REF_IN_POPUP=1",
                "sh '/tmp/ch/run.sh'"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_channel_is_private_and_carries_the_result_back() {
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::ExitStatusExt;
        let channel = Channel::create().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(channel.path()), 0o700);
        let submitted = Submitted {
            text: "prepared $(touch x)\n".into(),
            prompt: "the prompt".into(),
            restored: Some("/state/draft-1.md".into()),
        };
        send(channel.path(), &submitted).unwrap();
        assert_eq!(mode(&channel.path().join(RESULT)), 0o600);
        // Files are created new: a second send cannot overwrite them.
        assert!(send(channel.path(), &submitted).is_err());
        std::fs::write(channel.path().join(STATUS), "0\n").unwrap();
        std::fs::write(channel.path().join(STDERR), "note\n").unwrap();
        let ok = std::process::Output {
            status: std::process::ExitStatus::from_raw(0),
            stdout: vec![],
            stderr: vec![],
        };
        let got = receive(channel.path(), ok.clone()).unwrap();
        assert_eq!((got.code, got.stderr.as_slice()), (0, &b"note\n"[..]));
        assert_eq!(got.submitted, Some(submitted));

        // An abort: the code, no result.
        let aborted = Channel::create().unwrap();
        std::fs::write(aborted.path().join(STATUS), "130\n").unwrap();
        let got = receive(aborted.path(), ok.clone()).unwrap();
        assert_eq!((got.code, got.submitted), (130, None));
        // tmux failed before running anything: its own code, tmux's words.
        let failed = std::process::Output {
            status: std::process::ExitStatus::from_raw(1 << 8),
            stdout: vec![],
            stderr: b"no current client\n".to_vec(),
        };
        let empty = Channel::create().unwrap();
        let err = receive(empty.path(), failed).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Tmux);
        assert!(err.message.ends_with("no current client"), "{err}");
    }
}

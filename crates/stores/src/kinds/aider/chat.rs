//! One `.aider.chat.history.md` read as text, without I/O: where its
//! sessions start and end ([`sections`]), what each one's head says
//! ([`Head`]), and what its lines say to the surface ([`said`]), so the
//! rules can be tested on their own.
//!
//! Aider appends to the file as it goes (aider 0.86.2's `InputOutput`:
//! `user_input`, `ai_output`, `tool_output` append to the chat history):
//!
//! - `# aider chat started at YYYY-MM-DD HH:MM:SS` (local time, no zone)
//!   starts a session, after a blank line;
//! - `#### TEXT` is a line the person typed (a multi-line prompt is one
//!   `#### ` line per input line, each but the last ending with two spaces,
//!   a Markdown line break; a blank input line is `####` and spaces; a bare
//!   Enter is `#### <blank>`);
//! - `> TEXT` is aider's own output (the argv echo, the version banner,
//!   `> Cur working dir: …`, confirmations, `> Tokens: …`, errors,
//!   `> All chat history cleared.` after `/clear`);
//! - any other line is the model's reply, verbatim Markdown, reasoning
//!   inline as `<thinking-content-HASH>…</thinking-content-HASH>`.

use crate::kinds::foreign::title_from_text;
use serde::{Deserialize, Serialize};

/// The line that starts a session.
pub const HEADER: &str = "# aider chat started at ";

/// The line aider writes after `/clear`.
const CLEARED: &str = "All chat history cleared.";

/// The line aider writes at the start of a `--restore-chat-history` run.
const RESTORED: &str = "Restored previous conversation history.";

/// How many lines of a session's head are read for its directory.
const HEAD_LINES: usize = 64;

/// One session of the file: the bytes from its header to the next one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Where its header line starts.
    pub start: usize,
    /// Where the next session's header starts (or the file ends).
    pub end: usize,
}

/// What a session's head says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// The header's local time, as written (`2026-12-02 05:22:07`).
    pub started: String,
    /// `> Cur working dir:` (the directory aider ran in), else `> Git
    /// working dir:`; `None` when the head names neither.
    pub cwd: Option<String>,
    /// Started by `--restore-chat-history`: the earlier sessions of the
    /// file were put back in the model's context.
    pub restored: bool,
}

/// The sessions of a chat history, in file order. Text before the first
/// header (a file written by something else, or cut) is no session.
pub fn sections(text: &[u8]) -> Vec<Section> {
    let mut starts: Vec<usize> = Vec::new();
    if text.starts_with(HEADER.as_bytes()) {
        starts.push(0);
    }
    let needle = format!("\n{HEADER}");
    starts.extend(memchr::memmem::find_iter(text, needle.as_bytes()).map(|at| at + 1));
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    starts
        .iter()
        .zip(ends)
        .map(|(&start, end)| Section { start, end })
        .collect()
}

/// The head of one session's text (starting at its header line).
pub fn head(section: &str) -> Head {
    let mut lines = section.lines();
    let started = lines
        .next()
        .and_then(|l| l.strip_prefix(HEADER))
        .map(|t| t.trim().to_owned())
        .unwrap_or_default();
    let mut head = Head {
        started,
        ..Head::default()
    };
    let mut git_dir = None;
    for line in lines.take(HEAD_LINES) {
        if line.starts_with("####") {
            break;
        }
        let Some(note) = line.strip_prefix("> ") else {
            continue;
        };
        let note = note.trim_end();
        if let Some(dir) = note.strip_prefix("Cur working dir: ") {
            head.cwd = Some(dir.to_owned());
        } else if let Some(dir) = note.strip_prefix("Git working dir: ") {
            git_dir = Some(dir.to_owned());
        } else if note == RESTORED {
            head.restored = true;
        }
    }
    head.cwd = head.cwd.or(git_dir).filter(|d| !d.is_empty());
    head
}

/// What one stretch of a session says, with the 1-based line (within the
/// session) it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// A prompt the person typed (its lines joined).
    User(String),
    /// The model's reply, reasoning taken out.
    Assistant(String),
    /// `/clear`: the model's context starts again here.
    Clear,
}

/// Everything a session's text says, in order. Aider's own `> ` lines are
/// not conversation (`/clear`'s note aside); the lines before the first
/// prompt are the head (an argv echo whose `--message` spans lines leaves
/// unprefixed lines there, which are not a reply); `#### <blank>` is no
/// prompt; `/ask X` (or any `/command X`) followed by `X` is one prompt,
/// the command as typed.
pub fn said(section: &str) -> Vec<(u64, Said)> {
    let mut out: Vec<(u64, Said)> = Vec::new();
    let mut prompt: Option<(u64, Vec<&str>)> = None;
    let mut reply: Option<(u64, Vec<&str>)> = None;
    let mut prompted = false;
    for (n, line) in section.lines().enumerate().skip(1) {
        let seq = n as u64 + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(typed) = typed_line(line) {
            flush_reply(&mut out, &mut reply);
            prompted = true;
            if typed == "<blank>" {
                continue;
            }
            prompt.get_or_insert((seq, Vec::new())).1.push(typed);
            continue;
        }
        flush_prompt(&mut out, &mut prompt);
        if let Some(note) = line.strip_prefix('>') {
            flush_reply(&mut out, &mut reply);
            if note.trim() == CLEARED {
                out.push((seq, Said::Clear));
            }
            continue;
        }
        if prompted {
            reply.get_or_insert((seq, Vec::new())).1.push(line);
        }
    }
    flush_prompt(&mut out, &mut prompt);
    flush_reply(&mut out, &mut reply);
    out
}

/// The typed text of a `#### ` line (the Markdown line break taken off).
fn typed_line(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("####")?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some(rest.strip_prefix(' ').unwrap_or(rest).trim_end())
}

fn flush_prompt(out: &mut Vec<(u64, Said)>, prompt: &mut Option<(u64, Vec<&str>)>) {
    let Some((seq, lines)) = prompt.take() else {
        return;
    };
    let text = lines.join("\n").trim().to_owned();
    if text.is_empty() {
        return;
    }
    // `/ask X` is logged, then `X` again as the message sent.
    let expanded = out.iter().rev().find_map(|(_, s)| match s {
        Said::User(previous) => Some(previous),
        _ => None,
    });
    let repeated = expanded
        .and_then(|p| p.strip_prefix('/'))
        .and_then(|p| p.split_once(' '))
        .is_some_and(|(_, rest)| rest.trim() == text);
    if matches!(out.last(), Some((_, Said::User(_)))) && repeated {
        return;
    }
    out.push((seq, Said::User(text)));
}

fn flush_reply(out: &mut Vec<(u64, Said)>, reply: &mut Option<(u64, Vec<&str>)>) {
    let Some((seq, lines)) = reply.take() else {
        return;
    };
    let text = without_thinking(&lines.join("\n")).trim().to_owned();
    if !text.is_empty() {
        out.push((seq, Said::Assistant(text)));
    }
}

/// `text` without its `<thinking-content-…>…</thinking-content-…>` blocks
/// (an unclosed one runs to the end).
fn without_thinking(text: &str) -> String {
    const OPEN: &str = "<thinking-content-";
    let mut kept = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        kept.push_str(&rest[..at]);
        let tag_end = rest[at..].find('>').map(|e| at + e + 1);
        let Some(tag_end) = tag_end else {
            return kept;
        };
        let close = format!("</{}", &rest[at + 1..tag_end]);
        match rest[tag_end..].find(&close) {
            Some(end) => rest = &rest[tag_end + end + close.len()..],
            None => return kept,
        }
    }
    kept.push_str(rest);
    kept
}

/// The title of a session: its first typed prompt that is not a chat
/// command (`/run …`), else its first prompt.
pub fn title(said: &[(u64, Said)]) -> Option<String> {
    let prompts = || {
        said.iter().filter_map(|(_, s)| match s {
            Said::User(text) => Some(text.as_str()),
            _ => None,
        })
    };
    prompts()
        .find(|p| !p.starts_with('/'))
        .or_else(|| prompts().next())
        .and_then(title_from_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\n# aider chat started at 2026-12-02 05:22:07\n\n\
> Detected dumb terminal, disabling fancy input and pretty output.  \n\
> /v/bin/aider --model openai/mock-model --message started from a subdirectory  \n\
> Aider v0.86.2  \n\
> Git repo: .git with 2 files  \n\
> Cur working dir: /home/me/alpha/sub  \n\
> Git working dir: /home/me/alpha  \n\n\
#### started from a subdirectory  \n\n\
ACK: started from a subdirectory\n\n\
> Tokens: 798 sent, 11 received.  \n\n\
# aider chat started at 2026-12-02 05:23:00\n\n\
> Aider v0.86.2  \n\
> Restored previous conversation history.  \n\n\
#### <blank>  \n\n\
#### line one  \n\
####     \n\
#### line three  \n\n\
<thinking-content-7bbe>\n\nsecret plan\n\n</thinking-content-7bbe>\n\n\
ACK: three lines\n\n\
> Tokens: 1 sent, 1 received.  \n\n\
#### /ask what is this?  \n\n\
#### what is this?  \n\n\
It is a test.\n\n\
#### /clear  \n\n\
> All chat history cleared.  \n\n\
#### after the clear  \n";

    #[test]
    fn sessions_start_at_each_header_and_their_heads_say_where() {
        let found = sections(FILE.as_bytes());
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].start, 1);
        assert_eq!(found[1].end, FILE.len());
        assert!(FILE[found[1].start..].starts_with(HEADER));
        let first = head(&FILE[found[0].start..found[0].end]);
        assert_eq!(first.started, "2026-12-02 05:22:07");
        assert_eq!(first.cwd.as_deref(), Some("/home/me/alpha/sub"));
        assert!(!first.restored);
        let second = head(&FILE[found[1].start..found[1].end]);
        assert_eq!((second.cwd, second.restored), (None, true));
        assert!(sections(b"no header here\n").is_empty());
        let git_only = head("# aider chat started at x\n> Git working dir: /g  \n");
        assert_eq!(git_only.cwd.as_deref(), Some("/g"));
    }

    #[test]
    fn typed_lines_are_prompts_and_aider_s_own_lines_are_not() {
        let found = sections(FILE.as_bytes());
        let first = said(&FILE[found[0].start..found[0].end]);
        assert_eq!(
            first.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>(),
            [
                Said::User("started from a subdirectory".into()),
                Said::Assistant("ACK: started from a subdirectory".into()),
            ]
        );
        let second: Vec<Said> = said(&FILE[found[1].start..found[1].end])
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            second,
            [
                Said::User("line one\n\nline three".into()),
                Said::Assistant("ACK: three lines".into()),
                Said::User("/ask what is this?".into()),
                Said::Assistant("It is a test.".into()),
                Said::User("/clear".into()),
                Said::Clear,
                Said::User("after the clear".into()),
            ]
        );
    }

    #[test]
    fn a_multi_line_message_in_the_argv_echo_is_no_reply() {
        let text = "# aider chat started at 2026-12-02 05:22:07\n\
> /v/aider --message first line\nsecond line of the message\n> Aider v0.86.2  \n\n\
#### first line  \n#### second line of the message  \n\nACK\n";
        let got: Vec<Said> = said(text).into_iter().map(|(_, s)| s).collect();
        assert_eq!(
            got,
            [
                Said::User("first line\nsecond line of the message".into()),
                Said::Assistant("ACK".into())
            ]
        );
    }

    #[test]
    fn the_title_is_the_first_prompt_that_is_not_a_command() {
        let said = |texts: &[&str]| -> Vec<(u64, Said)> {
            texts
                .iter()
                .map(|t| (1, Said::User((*t).to_owned())))
                .collect()
        };
        assert_eq!(
            title(&said(&["/add calc.py", "fix the bug\nplease"])).as_deref(),
            Some("fix the bug")
        );
        assert_eq!(title(&said(&["/run ls"])).as_deref(), Some("/run ls"));
        assert_eq!(title(&[]), None);
    }

    #[test]
    fn reasoning_is_taken_out_even_unclosed() {
        assert_eq!(
            without_thinking("a<thinking-content-1>x</thinking-content-1>b"),
            "ab"
        );
        assert_eq!(without_thinking("a<thinking-content-1>x"), "a");
        assert_eq!(without_thinking("plain"), "plain");
    }
}

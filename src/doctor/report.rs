//! What `doctor` found, as values: printed as text for a person, or as
//! one JSON object (`doctor --json`) whose fields [`FIELDS`] documents
//! (docs/reference.md is generated from it; a test serializes a real
//! report and compares its keys with the table).

use std::fmt::Write as _;

use serde::Serialize;

use crate::display::{escape_unsafe, path_for_person};
use crate::json_fields::Field;

/// Everything `doctor` looked at.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Whether nothing is wrong (exit 0).
    pub ok: bool,
    /// This session-ref's version.
    pub version: String,
    /// The stores read.
    pub stores: Vec<StoreStatus>,
    /// The caches.
    pub caches: Vec<CacheStatus>,
    /// Every supported agent.
    pub agents: Vec<AgentStatus>,
    /// The configured remotes.
    pub remotes: Vec<RemoteStatus>,
    /// What is wrong, each with its fix.
    pub problems: Vec<Problem>,
}

/// One store root.
#[derive(Debug, Clone, Serialize)]
pub struct StoreStatus {
    /// Its kind (`claude`, `codex`, …).
    pub kind: String,
    /// Its directory.
    pub path: String,
    /// Sessions listed from it.
    pub sessions: usize,
    /// Files below it that are not sessions.
    pub skipped: usize,
    /// Files below it that could not be read, with why.
    pub unreadable: Vec<Unreadable>,
}

/// A file that could not be read.
#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    /// The file.
    pub path: String,
    /// Why.
    pub why: String,
}

/// One cache.
#[derive(Debug, Clone, Serialize)]
pub struct CacheStatus {
    /// `titles` (the title index) or `search` (the search index).
    pub name: &'static str,
    /// Its directory; `null` when disabled (`--no-cache`, no home).
    pub path: Option<String>,
    /// Bytes it takes.
    pub bytes: u64,
    /// `fresh` (used as it was), `updated` (files read again this run),
    /// `absent` (not built yet) or `disabled`.
    pub state: &'static str,
    /// Log files read again this run instead of taken from it.
    pub reread: usize,
}

/// One agent.
#[derive(Debug, Clone, Serialize)]
pub struct AgentStatus {
    /// Its word (`claude`).
    pub agent: &'static str,
    /// Its name (`Claude Code`).
    pub product: &'static str,
    /// Whether it is on this machine.
    pub found: bool,
    /// Its program on `$PATH`.
    pub binary: Option<String>,
    /// Its prompt hook (`null`: it has none).
    pub hook: Option<Integration>,
    /// Its MCP server (`null`: it has none).
    pub mcp: Option<Integration>,
    /// Its prompt hook in the current project's settings, where
    /// session-ref's is registered (`null`: not there).
    #[serde(rename = "projectHook")]
    pub project_hook: Option<Integration>,
    /// Its MCP server in the current project's settings, where ours is
    /// registered (`null`: not there).
    #[serde(rename = "projectMcp")]
    pub project_mcp: Option<Integration>,
}

/// A hook or MCP server registration in the user's settings.
#[derive(Debug, Clone, Serialize)]
pub struct Integration {
    /// The settings file.
    pub file: String,
    /// Whether session-ref is registered there.
    pub installed: bool,
    /// The program registered (`null`: not installed).
    pub program: Option<String>,
    /// Whether that program still runs.
    pub runs: bool,
    /// Why the file could not be read (`null`: it could).
    pub error: Option<String>,
}

/// One remote.
#[derive(Debug, Clone, Serialize)]
pub struct RemoteStatus {
    /// The ssh host.
    pub host: String,
    /// Whether it answered.
    pub reachable: bool,
    /// Its session-ref's version.
    pub version: Option<String>,
    /// Its remote protocol.
    pub protocol: Option<u64>,
    /// Why it did not answer.
    pub error: Option<String>,
}

/// One thing wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// What is wrong.
    pub problem: String,
    /// The command (or step) that fixes it.
    pub fix: String,
}

/// The fields of `doctor --json`.
pub const FIELDS: &[Field] = &[
    Field::new("ok", "true when nothing is wrong (doctor exits 0), else false (exit 1)"),
    Field::new("version", "this session-ref's version"),
    Field::new("stores", "the store roots read"),
    Field::new("stores[].kind", "a store root's kind (`claude`, `codex`, …)"),
    Field::new("stores[].path", "its directory"),
    Field::new("stores[].sessions", "sessions listed from it"),
    Field::new("stores[].skipped", "files below it that are not sessions"),
    Field::new("stores[].unreadable", "the files below it that could not be read"),
    Field::new("stores[].unreadable[].path", "a file below it that could not be read"),
    Field::new("stores[].unreadable[].why", "why"),
    Field::new("caches", "the title index and the search index"),
    Field::new("caches[].name", "`titles` (the title index) or `search` (the search index)"),
    Field::new("caches[].path", "its directory, `null` when disabled"),
    Field::new("caches[].bytes", "bytes it takes on disk"),
    Field::new("caches[].state", "`fresh`, `updated` (logs read again this run), `absent` or `disabled`"),
    Field::new("caches[].reread", "log files read again this run instead of taken from the index"),
    Field::new("agents", "every supported agent, found or not"),
    Field::new("agents[].agent", "the agent's word (`claude`, `codex`, …)"),
    Field::new("agents[].product", "its name (`Claude Code`)"),
    Field::new("agents[].found", "whether it is on this machine (its program on `$PATH` or its user directory)"),
    Field::new("agents[].binary", "its program on `$PATH`, or `null`"),
    Field::new("agents[].hook", "its prompt hook in the user's settings (`null`: the agent has none)"),
    Field::new("agents[].hook.file", "the settings file"),
    Field::new("agents[].hook.installed", "whether session-ref's hook is there"),
    Field::new("agents[].hook.program", "the session-ref program it runs, or `null`"),
    Field::new("agents[].hook.runs", "whether that program still runs"),
    Field::new("agents[].hook.error", "why the file could not be read, or `null`"),
    Field::new("agents[].mcp", "its MCP server in the user's settings (`null`: the agent has none); the same fields as `hook`"),
    Field::new("agents[].mcp.file", "the settings file"),
    Field::new("agents[].mcp.installed", "whether session-ref's MCP server is registered there"),
    Field::new("agents[].mcp.program", "the session-ref program it runs, or `null`"),
    Field::new("agents[].mcp.runs", "whether that program still runs"),
    Field::new("agents[].mcp.error", "why the file could not be read, or `null`"),
    Field::new("agents[].projectHook", "its prompt hook in the current directory's project settings where session-ref's is registered there (`setup --project`), else `null`; the same fields as `hook`"),
    Field::new("agents[].projectMcp", "its MCP server in the current directory's project settings where ours is registered there, else `null`; the same fields as `hook`"),
    Field::new("agents[].projectHook.file", "the settings file"),
    Field::new("agents[].projectHook.installed", "`true` (it is listed only when registered)"),
    Field::new("agents[].projectHook.program", "the session-ref program it runs"),
    Field::new("agents[].projectHook.runs", "whether that program still runs"),
    Field::new("agents[].projectHook.error", "why the file could not be read, or `null`"),
    Field::new("agents[].projectMcp.file", "the settings file"),
    Field::new("agents[].projectMcp.installed", "`true` (it is listed only when registered)"),
    Field::new("agents[].projectMcp.program", "the session-ref program it runs"),
    Field::new("agents[].projectMcp.runs", "whether that program still runs"),
    Field::new("agents[].projectMcp.error", "why the file could not be read, or `null`"),
    Field::new("remotes", "the configured remotes (`--remote`, the config file)"),
    Field::new("remotes[].host", "a configured remote's ssh host"),
    Field::new("remotes[].reachable", "whether its session-ref answered"),
    Field::new("remotes[].version", "its session-ref's version, or `null`"),
    Field::new("remotes[].protocol", "its remote protocol, or `null`"),
    Field::new("remotes[].error", "why it did not answer, or `null`"),
    Field::new("problems", "what is wrong; empty when nothing is"),
    Field::new("problems[].problem", "one thing wrong"),
    Field::new("problems[].fix", "the command (or step) that fixes it"),
];

/// How many unreadable files of a root the text lists.
const LISTED: usize = 5;

fn yes_no(flag: bool) -> &'static str {
    if flag {
        "yes"
    } else {
        "no"
    }
}

fn integration_line(out: &mut String, what: &str, i: &Integration) {
    let state = match (&i.error, &i.program) {
        (Some(e), _) => format!("cannot read: {}", escape_unsafe(e)),
        (None, Some(p)) => format!(
            "installed: {} ({})",
            escape_unsafe(p),
            if i.runs { "runs" } else { "DOES NOT RUN" }
        ),
        (None, None) => "not installed".to_owned(),
    };
    let _ = writeln!(out, "  {what:<5} {state}  [{}]", escape_unsafe(&i.file));
}

impl Report {
    /// The report for a person: one section per area, then the problems.
    pub fn text(&self) -> String {
        let mut out = format!("session-ref {}\n\nstores:\n", self.version);
        if self.stores.is_empty() {
            out.push_str("  none found\n");
        }
        for s in &self.stores {
            let _ = writeln!(
                out,
                "  {:<8} {}  {} sessions, {} skipped, {} unreadable",
                s.kind,
                escape_unsafe(&s.path),
                s.sessions,
                s.skipped,
                s.unreadable.len()
            );
            for u in s.unreadable.iter().take(LISTED) {
                let _ = writeln!(
                    out,
                    "    cannot read {}: {}",
                    escape_unsafe(&u.path),
                    escape_unsafe(&u.why)
                );
            }
            if s.unreadable.len() > LISTED {
                let _ = writeln!(out, "    … and {} more", s.unreadable.len() - LISTED);
            }
        }
        out.push_str("\ncaches:\n");
        for c in &self.caches {
            let path = c.path.as_deref().map_or("-".into(), escape_unsafe);
            let _ = writeln!(
                out,
                "  {:<8} {path}  {} bytes, {}{}",
                c.name,
                c.bytes,
                c.state,
                if c.reread > 0 {
                    format!(" ({} files read again)", c.reread)
                } else {
                    String::new()
                }
            );
        }
        out.push_str("\nagents:\n");
        for a in &self.agents {
            let binary = a
                .binary
                .as_deref()
                .map_or("not on $PATH".into(), escape_unsafe);
            let _ = writeln!(
                out,
                "{} ({}): found {}, {binary}",
                a.product,
                a.agent,
                yes_no(a.found)
            );
            if let Some(hook) = &a.hook {
                integration_line(&mut out, "hook", hook);
            }
            if let Some(mcp) = &a.mcp {
                integration_line(&mut out, "mcp", mcp);
            }
            if let Some(hook) = &a.project_hook {
                integration_line(&mut out, "hook (this project)", hook);
            }
            if let Some(mcp) = &a.project_mcp {
                integration_line(&mut out, "mcp (this project)", mcp);
            }
        }
        if !self.remotes.is_empty() {
            out.push_str("\nremotes:\n");
        }
        for r in &self.remotes {
            let state = match (&r.version, &r.error) {
                (Some(v), _) => format!(
                    "reachable, session-ref {} (protocol {})",
                    escape_unsafe(v),
                    r.protocol.unwrap_or_default()
                ),
                (None, Some(e)) => format!("unreachable: {}", escape_unsafe(e)),
                (None, None) => "unreachable".to_owned(),
            };
            let _ = writeln!(out, "  {}: {state}", escape_unsafe(&r.host));
        }
        out.push('\n');
        if self.problems.is_empty() {
            out.push_str("no problems found\n");
        }
        for p in &self.problems {
            let _ = writeln!(
                out,
                "problem: {} (fix: {})",
                escape_unsafe(&p.problem),
                escape_unsafe(&p.fix)
            );
        }
        out
    }
}

/// A path as `doctor` shows it (escaped, `~` not abbreviated: it is read
/// by scripts too).
pub fn shown(path: &std::path::Path) -> String {
    path_for_person(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_has_exactly_the_fields_of_the_table() {
        let integration = Integration {
            file: "/h/.claude/settings.json".into(),
            installed: true,
            program: Some("/bin/session-ref".into()),
            runs: true,
            error: None,
        };
        let report = Report {
            ok: false,
            version: "1".into(),
            stores: vec![StoreStatus {
                kind: "claude".into(),
                path: "/h/.claude/projects".into(),
                sessions: 1,
                skipped: 0,
                unreadable: vec![Unreadable {
                    path: "/h/.claude/projects/a.jsonl".into(),
                    why: "Permission denied".into(),
                }],
            }],
            caches: vec![CacheStatus {
                name: "titles",
                path: Some("/h/.cache/session-ref".into()),
                bytes: 10,
                state: "fresh",
                reread: 0,
            }],
            agents: vec![AgentStatus {
                agent: "claude",
                product: "Claude Code",
                found: true,
                binary: None,
                hook: Some(integration.clone()),
                mcp: Some(integration.clone()),
                project_hook: Some(integration.clone()),
                project_mcp: Some(integration),
            }],
            remotes: vec![RemoteStatus {
                host: "box".into(),
                reachable: false,
                version: None,
                protocol: None,
                error: Some("no".into()),
            }],
            problems: vec![Problem {
                problem: "p".into(),
                fix: "f".into(),
            }],
        };
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(
            crate::json_fields::key_paths(&value),
            crate::json_fields::table_paths(FIELDS)
        );
        let text = report.text();
        assert!(text.contains("cannot read /h/.claude/projects/a.jsonl: Permission denied"));
        assert!(text.contains("problem: p (fix: f)"), "{text}");
        assert!(text.contains("  hook (this project) installed: /bin/session-ref (runs)"));
    }
}

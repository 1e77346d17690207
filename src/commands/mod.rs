//! The non-interactive commands: each turns a [`Config`] into the exact bytes
//! for stdout, or an error. Nothing is printed here.

mod candidates;
mod keep;

use std::sync::Arc;

use crate::config::{Command, Config, InputFormat, OutputFormat};
use crate::error::{Error, Result};
use session_ref_core::export::{self, ExportHeader, ExportMessage};
use session_ref_core::redact::{Redactions, Redactor};
use session_ref_core::{json, mention, render, uri};
use session_ref_engine::engine::{render_jsonl, render_text, Engine};
use session_ref_engine::Stores;
use session_ref_stores::{Caches, Catalog, StoreRoots, REGISTRY};

pub use candidates::CANDIDATE_FIELDS;

/// The stores of one run as the engine opens them: the config's roots
/// and title index, ranking from `cwd`, with the client of the remotes
/// `remotes` names (none when it names no host).
pub fn stores(
    config: &Config,
    cwd: Option<&str>,
    remotes: &crate::config::remotes::RemoteSettings,
) -> Stores {
    // A `[keep]` table keeps with the listings a person reads: the
    // picker's and `candidates`'.
    let keeps = matches!(
        config.command,
        Command::Pick(_) | Command::Candidates { .. }
    );
    Stores::new(config.roots.clone())
        .cache_dir(config.cache_dir.clone())
        .cwd(cwd.map(str::to_owned))
        .remotes(remotes.client())
        .archive(config.keep.archive(keeps))
}

/// The caches of one run ([`Stores::caches`] of [`stores`]), for the
/// front-ends that list by themselves.
pub fn run_caches(
    config: &Config,
    cwd: Option<&str>,
    remotes: &crate::config::remotes::RemoteSettings,
) -> Caches {
    stores(config, cwd, remotes).caches()
}

/// Load the catalog for a config, reporting what could not be listed.
pub fn load_catalog(config: &Config) -> Catalog {
    let catalog = stores(config, config.target.cwd.as_deref(), &config.remotes).catalog();
    report_listing(&catalog, config);
    catalog
}

/// Tell stderr what discovery could not list and, verbose, what each
/// store root gave (the same line for every kind, in registry order) and
/// what it skipped as not a session (a warning each, but the routine
/// skips of sub-agents and archived sessions, counted in one line per
/// kind of skip): the one report of the commands and
/// the picker. Paths and reasons are escaped: a file name can hold
/// anything, escape sequences included.
pub fn report_listing(catalog: &Catalog, config: &Config) {
    use crate::display::{escape_unsafe, path_for_person};
    use session_ref_stores::kinds::{routine_skip, ROUTINE_SKIPS};
    if config.verbose {
        for (kind, root) in config.roots.iter() {
            eprintln!(
                "session-ref: {kind} {}: {}",
                path_for_person(root),
                catalog.found_under(kind, root)
            );
        }
        // Routine skips (sub-agents, archived sessions) are how agents
        // keep sessions: counted, one line each; the rest are warnings.
        let mut routine = vec![0usize; ROUTINE_SKIPS.len()];
        for (path, why) in &catalog.skipped {
            match routine_skip(why) {
                Some(i) => routine[i] += 1,
                None => eprintln!(
                    "session-ref: warning: {}: {}",
                    path_for_person(path),
                    escape_unsafe(why)
                ),
            }
        }
        for (skip, &n) in ROUTINE_SKIPS.iter().zip(&routine) {
            if n > 0 {
                let what = if n == 1 { skip.one } else { skip.many };
                eprintln!("session-ref: skipped {n} {what}");
            }
        }
    }
    for (path, why) in &catalog.unreadable {
        eprintln!(
            "session-ref: warning: cannot list {}: {}",
            path_for_person(path),
            escape_unsafe(why)
        );
    }
    let archive = catalog
        .caches()
        .get::<session_ref_stores::archive::Archive>();
    for problem in archive.take_problems() {
        eprintln!("session-ref: warning: {}", escape_unsafe(&problem));
    }
}

/// Where we looked and how to point at a store, for an empty listing.
pub fn nothing_found_hint(config: &Config) -> String {
    let mut hint = String::from("no sessions found. Looked in:\n");
    let looked: &StoreRoots = &config.looked_at;
    // Paths in one column, however long the kinds' names.
    let width = REGISTRY.iter().map(|k| k.as_str().len()).max().unwrap_or(0);
    for (kind, path) in looked.iter() {
        hint.push_str(&format!(
            "  {kind:<width$} {}\n",
            crate::display::path_for_person(path)
        ));
    }
    hint.push_str("Point at a store with ");
    for (i, kind) in REGISTRY.iter().enumerate() {
        let store = kind.store();
        hint.push_str(match i {
            0 => "",
            _ if i + 1 == REGISTRY.len() => " or ",
            _ => ", ",
        });
        hint.push_str(&format!("--{} DIR", store.flag()));
        if store.flag() != store.name() {
            hint.push_str(&format!(" ({})", store.name()));
        }
    }
    hint.push_str(",\nor try the demo: session-ref --store assets/demo\n");
    hint
}

/// Whether the command reads its input from stdin.
pub fn needs_stdin(command: &Command) -> bool {
    matches!(command, Command::Prepare { text: None, .. })
}

/// What `prepare` says when it reads its message from a terminal.
pub const STDIN_HINT: &str = "session-ref: reading the message from the terminal: type it, then ctrl-d on a line of its own (or give it as an argument: session-ref prepare 'TEXT')";

/// Read all of stdin as UTF-8 text.
pub fn read_stdin(mut stdin: impl std::io::Read) -> Result<String> {
    let mut raw = Vec::new();
    stdin
        .read_to_end(&mut raw)
        .map_err(|e| Error::invalid_reference(format!("cannot read stdin: {e}")))?;
    String::from_utf8(raw).map_err(|_| Error::invalid_reference("stdin is not UTF-8 text"))
}

/// Run `search`, streaming its results to stdout until done or `cancel`;
/// what the scan saw (`main` exits 1 when nothing matched, as grep does).
pub fn search_streaming(
    config: &Config,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<crate::search::scan::Outcome> {
    let Command::Search {
        query,
        regex,
        limit,
        json,
        index,
    } = &config.command
    else {
        return Err(Error::internal("not a search command"));
    };
    let request = crate::search::command::Request {
        query: query.clone(),
        regex: *regex,
        limit: *limit,
        json: *json,
        index: index.clone(),
        // Matches stand out on a terminal, unless NO_COLOR; never in a
        // pipe or a file, and never in JSON.
        color: !*json
            && std::io::IsTerminal::is_terminal(&std::io::stdout())
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    // No store to search, here or elsewhere: nothing could ever match, so
    // this is the command line's error (exit 2), not "nothing found".
    if config.roots.is_empty() && config.remotes.hosts.is_empty() {
        return Err(Error::invalid_config(format!(
            "search: {}",
            nothing_found_hint(config).trim_end()
        ))
        .usage());
    }
    let (index, catalog) = match request.index.as_deref() {
        Some(dir) => {
            // Labels of the rows printed come through the title index.
            let caches = run_caches(config, config.target.cwd.as_deref(), &config.remotes);
            let mut catalog = Catalog::with_caches(Arc::new(caches));
            let (index, events) = session_ref_stores::search::index::Index::open_and_list(
                dir,
                catalog.caches(),
                &config.roots,
            );
            catalog.append(events);
            report_listing(&catalog, config);
            (Some(index), catalog)
        }
        None => (None, load_catalog(config)),
    };
    if catalog.is_empty() && !config.roots_explicit {
        eprint!("session-ref: {}", nothing_found_hint(config));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = crate::search::command::run(config, &catalog, &request, index, cancel, &mut out);
    catalog.save_index();
    result
}

/// Run a non-interactive command; the result is the whole of stdout.
/// `stdin` is the input already read when [`needs_stdin`] says so.
pub fn run(config: &Config, stdin: Option<String>) -> Result<String> {
    match &config.command {
        Command::UriEncode(id) => Ok(format!("{}\n", uri::encode(id))),
        Command::UriDecode(text) => Ok(format!("{}\n", json::quote(&uri::decode(text)?, false))),
        Command::Mention {
            id,
            label: Some(label),
        } => {
            // With a label, no store is read: the id is the argument's (a
            // well-formed mention's or URI's), or the argument itself.
            let named = session_ref_engine::SessionArg::parse(id).ok().flatten();
            let id = named.map_or_else(|| id.clone(), |n| n.id);
            Ok(format!("{}\n", mention::format_mention(&id, Some(label))))
        }
        Command::Completions(text) | Command::Man(text) => Ok(text.clone()),
        Command::ManPages { dir, pages } => write_man_pages(dir, pages),
        Command::RemoteCheck(host) => crate::remote::check(&config.remotes, host),
        Command::RemoteServe { .. } => Err(Error::internal(
            "remote serve streams its answers: run it with remote::serve",
        )),
        Command::Pick(_) => Err(Error::internal("the picker is run by the terminal driver")),
        Command::Hook { .. } | Command::HookInstall(_) | Command::HookUninstall(_) => Err(
            Error::internal("hook commands are run by hook::run_command"),
        ),
        Command::Mcp { .. } | Command::McpInstall(_) | Command::McpUninstall(_) => {
            Err(Error::internal("mcp commands are run by mcp::run_command"))
        }
        Command::Keep { purge, max_bytes } => keep::keep(config, *purge, *max_bytes),
        Command::Search { .. } => Err(Error::internal(
            "search streams its output: run it with search_streaming",
        )),
        Command::Launch(_) | Command::ExecPlan(_) => Err(Error::internal(
            "resume and handoff start a program: run them with launch_command",
        )),
        Command::Setup(_) | Command::Doctor { .. } => Err(Error::internal(
            "setup and doctor are run by setup::run_command and doctor::run_command",
        )),
        _ => {
            let catalog = load_catalog(config);
            let engine = Engine::new(Arc::new(catalog), config.limits, config.target.clone());
            let out = run_with_engine(config, &engine, stdin);
            engine.catalog.save_index();
            out
        }
    }
}

/// `resume` and `handoff`: the command that starts the agent, every check
/// made (nothing has started yet), agents looked up on `$PATH`.
pub fn launch_plan(
    config: &Config,
    request: &crate::config::LaunchRequest,
) -> Result<crate::launch::Plan> {
    let catalog = load_catalog(config);
    let engine = Engine::new(Arc::new(catalog), config.limits, config.target.clone());
    let path = std::env::var_os("PATH");
    let plan = crate::launch::plan_arg(&engine, &request.id, &request.launch, path.as_deref());
    engine.catalog.save_index();
    plan
}

/// `man --dir`: write each page into `dir` (made if missing), each
/// replaced whole (written beside, then renamed); the paths written, one a
/// line.
fn write_man_pages(dir: &std::path::Path, pages: &[(String, String)]) -> Result<String> {
    let failed = |what: &std::path::Path, e: std::io::Error| {
        Error::invalid_config(format!(
            "man --dir: cannot write {}: {e}",
            crate::display::path_for_person(what)
        ))
    };
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
    let mut written = String::new();
    for (name, page) in pages {
        let path = dir.join(name);
        let partial = dir.join(format!(".{name}.partial"));
        std::fs::write(&partial, page)
            .and_then(|()| std::fs::rename(&partial, &path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&partial);
                failed(&path, e)
            })?;
        written.push_str(&crate::display::path_for_person(&path));
        written.push('\n');
    }
    Ok(written)
}

fn run_with_engine(config: &Config, engine: &Engine, stdin: Option<String>) -> Result<String> {
    match &config.command {
        Command::Candidates {
            query,
            limit,
            fuzzy,
            json,
            sort,
        } => {
            if engine.catalog.is_empty() && !config.roots_explicit {
                eprint!("session-ref: {}", nothing_found_hint(config));
            }
            // One more than the limit tells whether the limit cut the list.
            let mut found = engine.candidates_sorted(query, limit.saturating_add(1), *fuzzy, *sort);
            if found.len() > *limit {
                found.truncate(*limit);
                let sessions = if *limit == 1 { "session" } else { "sessions" };
                eprintln!(
                    "session-ref: note: listed the first {limit} {sessions}; more match (--limit N lists more)"
                );
            }
            Ok(if *json {
                candidates::candidates_json(&found)
            } else {
                candidates::candidates_table(&found, *sort)
            })
        }
        Command::Prepare {
            text,
            input,
            format,
            redact,
        } => {
            let raw = text.clone().or(stdin).unwrap_or_default();
            let messages = match input {
                InputFormat::Text if text.is_none() => {
                    engine.prepare_text(strip_final_newline(&raw))?
                }
                InputFormat::Text => engine.prepare_text(&raw)?,
                InputFormat::Jsonl => engine.prepare_messages(parse_jsonl(&raw)?)?,
            };
            Ok(redact_if(
                *redact,
                match format {
                    OutputFormat::Text => render_text(&messages),
                    OutputFormat::Jsonl => render_jsonl(&messages),
                },
            ))
        }
        Command::Export {
            id,
            label,
            format,
            snapshot,
            tools,
            redact,
            output,
        } => {
            let (document, found) = if *snapshot {
                let text = format!("{}\n", engine.preview(id, label.as_deref())?.text);
                if *redact {
                    let (clean, found) = Redactor::new().redact(&text);
                    (clean.into_owned(), Some(found))
                } else {
                    (text, None)
                }
            } else {
                let (header, messages) = engine.export(id, label.as_deref(), *tools)?;
                let (header, messages, found) = if *redact {
                    let (header, messages, found) = redacted(header, messages);
                    (header, messages, Some(found))
                } else {
                    (header, messages, None)
                };
                (export::export(&header, &messages, *format), found)
            };
            if let Some(found) = found {
                note_redactions(found);
            }
            deliver_export(document, output.as_deref())
        }
        Command::Preview {
            id,
            label,
            json,
            redact,
        } => {
            let context = engine.preview(id, label.as_deref())?;
            let stats = &context.references[0];
            let used = render::reference_json(&context.data[0]).len();
            let out = if *json {
                let value = serde_json::json!({"reference": stats, "context": context.text});
                format!("{}\n", json::stringify_value(&value))
            } else {
                format!(
                    "{}\n\n-- {} of {} messages kept, {} omitted ({} bytes) · {} of {} bytes{}{}\n",
                    context.text,
                    stats.retained_messages,
                    stats.original_messages,
                    stats.omitted_messages,
                    stats.omitted_bytes,
                    used,
                    engine.limits.max_reference_bytes,
                    if stats.compacted { " · compacted" } else { "" },
                    if stats.truncated { " · truncated" } else { "" },
                )
            };
            Ok(redact_if(*redact, out))
        }
        Command::Mention { id, label } => {
            let named = engine.resolve_session_arg(id)?;
            // Without --label, the label is the mention's or the session's
            // title: a session that is not listed has none, and its mention
            // would cite nothing.
            if engine.catalog.find(&named.id).is_none() {
                return Err(Error::read_failed(format!(
                    "unknown session {} (give --label to write its mention anyway)",
                    json::quote(&named.id, false)
                )));
            }
            let given = label.as_deref().or(named.label.as_deref());
            let label = engine.label_or_default(&named.id, given);
            Ok(format!(
                "{}\n",
                mention::format_mention(&named.id, Some(&label))
            ))
        }
        Command::UriEncode(_)
        | Command::UriDecode(_)
        | Command::Pick(_)
        | Command::Hook { .. }
        | Command::HookInstall(_)
        | Command::HookUninstall(_)
        | Command::Mcp { .. }
        | Command::McpInstall(_)
        | Command::McpUninstall(_)
        | Command::Search { .. }
        | Command::Launch(_)
        | Command::ExecPlan(_)
        | Command::Keep { .. }
        | Command::Completions(_)
        | Command::RemoteCheck(_)
        | Command::RemoteServe { .. }
        | Command::Setup(_)
        | Command::Doctor { .. }
        | Command::Man(_)
        | Command::ManPages { .. } => {
            unreachable!("handled without an engine")
        }
    }
}

/// The message typed on stdin: one trailing newline (as `echo` adds), `\n`
/// or `\r\n`, is not part of it. A lone final `\r` is.
fn strip_final_newline(text: &str) -> &str {
    match text.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => text,
    }
}

/// One JSON message object per non-blank line.
fn parse_jsonl(raw: &str) -> Result<Vec<serde_json::Value>> {
    raw.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| {
                Error::invalid_reference(format!("input line {}: not a JSON message: {e}", i + 1))
            })
        })
        .collect()
}

/// `header` and `messages` with likely secrets replaced (labels and paths
/// too: a title can hold a token), and how many were.
fn redacted(
    mut header: ExportHeader,
    mut messages: Vec<ExportMessage>,
) -> (ExportHeader, Vec<ExportMessage>, Redactions) {
    let redactor = Redactor::new();
    let mut found = Redactions::default();
    let mut clean = |text: &mut String| {
        let (out, n) = redactor.redact(text);
        if n.count > 0 {
            *text = out.into_owned();
            found += n;
        }
    };
    clean(&mut header.label);
    if let Some(cwd) = header.cwd.as_mut() {
        clean(cwd);
    }
    for message in &mut messages {
        clean(&mut message.text);
        if let Some(name) = message.tool.as_mut().and_then(|t| t.name.as_mut()) {
            clean(name);
        }
    }
    // The mention carries the label: made again from the redacted one.
    header.mention = mention::format_mention(&header.session_id, Some(&header.label));
    (header, messages, found)
}

/// `out` with likely secrets replaced when `redact` (`prepare --redact`,
/// `preview --redact`), the count said on stderr; else `out` as it is.
/// Replacing runs inside JSON strings keeps JSON valid (see
/// `session_ref_core::redact`).
fn redact_if(redact: bool, out: String) -> String {
    if !redact {
        return out;
    }
    let (clean, found) = Redactor::new().redact(&out);
    note_redactions(found);
    clean.into_owned()
}

/// Say on stderr how many secrets `--redact` replaced (also none: the
/// user asked, and silence would not tell "none" from "not run").
fn note_redactions(found: Redactions) {
    let what = if found.count == 1 {
        "secret"
    } else {
        "secrets"
    };
    eprintln!(
        "session-ref: note: --redact replaced {} likely {what}",
        found.count
    );
}

/// Write an export's `document` privately (0600, atomically) to `path`,
/// through a symbolic link to its target: `export --output` and the
/// picker's `alt-x`.
pub(crate) fn write_export(path: &std::path::Path, document: &str) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    session_ref_stores::private::write_atomic(&target, document.as_bytes())
}

/// An export on stdout, or written privately to `output` (through a
/// symbolic link to its target) with nothing on stdout.
fn deliver_export(document: String, output: Option<&std::path::Path>) -> Result<String> {
    let Some(path) = output else {
        return Ok(document);
    };
    write_export(path, &document).map_err(|e| {
        Error::delivery_failed(format!(
            "export --output {}: {e}",
            crate::display::path_for_person(path)
        ))
    })?;
    Ok(String::new())
}

#[cfg(test)]
mod tests {
    use super::candidates::candidates_json;
    use super::*;
    use session_ref_engine::engine::Candidate;

    #[test]
    fn candidates_json_is_json_stringify_of_the_candidates() {
        let candidate = |cwd: Option<&str>| Candidate {
            session_id: "s-1".to_owned(),
            label: "a \"quoted\" <tag>\n\u{1}é😀".to_owned(),
            cwd: cwd.map(str::to_owned),
            created_at: "2026-01-01T00:00:00.000Z".to_owned(),
            mention: "@[a](x)".to_owned(),
            agent: session_ref_engine::agent_key::AgentKey("claude"),
            path: "/p\\q.jsonl".to_owned(),
            last_activity: cwd.map(|_| "2026-01-02T03:04:05Z".to_owned()),
            activity: Some(1),
            host: cwd.map(|_| "dev box".to_owned()),
            archived: cwd.is_none(),
        };
        let found = [candidate(Some("/w\td")), candidate(None)];
        let expected: String = found
            .iter()
            .map(|c| {
                let value = serde_json::to_value(c).unwrap();
                format!("{}\n", json::stringify_value(&value))
            })
            .collect();
        assert_eq!(candidates_json(&found), expected);
    }

    #[test]
    fn stdin_loses_one_final_newline_only() {
        assert_eq!(strip_final_newline("hi\n"), "hi");
        assert_eq!(strip_final_newline("hi\r\n"), "hi");
        assert_eq!(strip_final_newline("hi\n\n"), "hi\n");
        assert_eq!(strip_final_newline("hi"), "hi");
        // A carriage return that ends no line is part of the text.
        assert_eq!(strip_final_newline("hi\r"), "hi\r");
        assert_eq!(strip_final_newline("hi\r\r\n"), "hi\r");
    }
}

//! The documents cannot drift from the code. The guide's key table
//! (docs/guide.md) lists exactly the picker's keys: every key bound outside
//! the help screen appears in its first column, and every key there is
//! bound; the guide shows every element of the query syntax tables. The key
//! table in `src/keys.rs` is the source of truth, and docs/reference.md is
//! generated from it: `UPDATE_DOCS=1 cargo test --test it readme_keys::`
//! rewrites it, and without `UPDATE_DOCS` a stale reference fails. The
//! error page (docs/errors.md) explains every code and exit code there is.

use std::collections::BTreeSet;

use std::path::PathBuf;

use session_ref::keys::{
    help_rows, key_name, HelpRow, When, BINDINGS, FILTER_SYNTAX, SEARCH_SYNTAX,
};

/// The user guide, which holds the key table people read.
fn guide() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/guide.md")
}

/// The backticked words of the first column of the table under `| key |`.
fn readme_keys() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(guide()).expect("read docs/guide.md");
    let table = readme
        .split("| key | does |")
        .nth(1)
        .expect("docs/guide.md has a `| key | does |` table");
    let mut keys = BTreeSet::new();
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let first = row.split('|').nth(1).unwrap_or("");
        keys.extend(first.split('`').skip(1).step_by(2).map(str::to_owned));
    }
    keys
}

#[test]
fn readme_key_table_matches_the_key_map() {
    let bound: BTreeSet<String> = BINDINGS
        .iter()
        .filter(|b| b.when != When::Help)
        .flat_map(|b| b.keys.iter().map(|k| key_name(*k)))
        .collect();
    let documented = readme_keys();
    let undocumented: Vec<&String> = bound.difference(&documented).collect();
    let unbound: Vec<&String> = documented.difference(&bound).collect();
    assert!(
        undocumented.is_empty() && unbound.is_empty(),
        "docs/guide.md key table is out of date: bound but not in it {undocumented:?}; \
         in it but not bound {unbound:?}"
    );
}

#[test]
fn readme_shows_the_query_syntax_of_the_key_table() {
    // In a Markdown table a `|` is written `\|`, even in code.
    let readme = std::fs::read_to_string(guide())
        .expect("read docs/guide.md")
        .replace("\\|", "|");
    for syntax in FILTER_SYNTAX.iter().chain(SEARCH_SYNTAX) {
        assert!(
            readme.contains(&format!("`{}`", syntax.example)),
            "docs/guide.md does not show `{}` ({})",
            syntax.example,
            syntax.means
        );
    }
}

/// A Markdown table cell: `|` is written `\\|`, also inside code.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// docs/reference.md as the key table makes it: the help screen's rows
/// (the bindings by where they apply, then the query syntax).
fn reference() -> String {
    let mut out = String::from(
        "# Reference\n\n\
         Generated from the code (`src/keys.rs`, the one key table the picker, its\n\
         help screen and `--help` use, and the field tables beside the code that\n\
         writes each JSON output): do not edit by hand;\n\
         `UPDATE_DOCS=1 cargo test --test it readme_keys::` rewrites it. The guide\n\
         ([guide.md](guide.md)) explains the keys and the query syntax with\n\
         examples; error codes and exit codes: [errors.md](errors.md).\n",
    );
    let mut in_table = false;
    for row in help_rows() {
        match row {
            HelpRow::Heading(title) => {
                out.push_str(&format!("\n## {title}\n\n| keys | does |\n|---|---|\n"));
                in_table = true;
            }
            HelpRow::Entry { keys, what } => {
                // A syntax example is one thing typed (`a b`); a binding's
                // keys are space-separated names.
                let typed = FILTER_SYNTAX
                    .iter()
                    .chain(SEARCH_SYNTAX)
                    .any(|s| s.example == keys);
                let shown: Vec<String> = if typed {
                    vec![format!("`{}`", cell(&keys))]
                } else {
                    keys.split(' ')
                        .filter(|k| !k.is_empty())
                        .map(|k| format!("`{}`", cell(k)))
                        .collect()
                };
                out.push_str(&format!("| {} | {} |\n", shown.join(" "), cell(what)));
            }
            HelpRow::Note(note) => {
                if in_table {
                    out.push('\n');
                    in_table = false;
                }
                out.push_str(&format!("{note}\n"));
            }
        }
    }
    out.push_str(&json_outputs());
    out
}

/// The JSON outputs and their fields, from the tables beside the code
/// that writes them (`tests/it/json_fields.rs` checks each table against
/// the output).
fn json_outputs() -> String {
    use session_ref::json_fields::Field;
    let outputs: [(&str, &str, &[Field]); 6] = [
        (
            "candidates --json",
            "One object per line, best first.",
            session_ref::commands::CANDIDATE_FIELDS,
        ),
        (
            "search --json",
            "One object per matching session, newest first.",
            session_ref::search::FOUND_FIELDS,
        ),
        (
            "doctor --json",
            "One object; `setup` prints text only (its receipt file is private state).",
            session_ref::doctor::report::FIELDS,
        ),
        (
            "MCP list_sessions",
            "The tool result's structured content (also its text block).",
            session_ref::mcp::tools::LIST_FIELDS,
        ),
        (
            "MCP search_sessions",
            "The tool result's structured content (also its text block): the fields of \
             `list_sessions`, and in each session its hits:",
            session_ref::mcp::tools::SEARCH_HIT_FIELDS,
        ),
        (
            "MCP read_session",
            "The tool result's structured content; its text block is the snapshot.",
            session_ref::mcp::tools::READ_FIELDS,
        ),
    ];
    let mut out = String::from("\n## JSON outputs\n");
    for (name, about, fields) in outputs {
        out.push_str(&format!(
            "\n### `{name}`\n\n{about}\n\n| field | holds |\n|---|---|\n"
        ));
        for field in fields {
            let only = if field.remote_only {
                " (sessions of another machine only)"
            } else {
                ""
            };
            out.push_str(&format!(
                "| `{}` | {}{only} |\n",
                cell(field.path),
                cell(field.meaning)
            ));
        }
    }
    out
}

#[test]
fn the_reference_is_generated_from_the_key_table() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md");
    let want = reference();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/reference.md");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference.md is stale: run `UPDATE_DOCS=1 cargo test --test it readme_keys::`"
    );
}

#[test]
fn the_error_page_lists_every_code_and_exit_code() {
    use session_ref::error::{ErrorCode, EXIT_CANCELLED, EXIT_FAILED, EXIT_USAGE};
    let page =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/errors.md"))
            .expect("read docs/errors.md");
    for code in ErrorCode::ALL.iter().chain(&ErrorCode::BEYOND_SPEC) {
        assert!(
            page.contains(&format!("| `{}` |", code.as_str())),
            "docs/errors.md does not explain {}",
            code.as_str()
        );
    }
    for exit in [0, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED] {
        assert!(
            page.contains(&format!("\n| {exit} |")),
            "docs/errors.md has no row for exit {exit}"
        );
    }
}

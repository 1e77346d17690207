//! The README's key table lists exactly the picker's keys: every key bound
//! outside the help screen appears in its first column, and every key there
//! is bound. The key table in `src/keys.rs` is the source of truth, as are its query
//! syntax tables, whose every element the README shows too.

use std::collections::BTreeSet;

use session_ref::keys::{key_name, When, BINDINGS, FILTER_SYNTAX, SEARCH_SYNTAX};

/// The backticked words of the first column of the table under `| key |`.
fn readme_keys() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("read README.md");
    let table = readme
        .split("| key | does |")
        .nth(1)
        .expect("README has a `| key | does |` table");
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
        "README key table is out of date: bound but not in README {undocumented:?}; \
         in README but not bound {unbound:?}"
    );
}

#[test]
fn readme_shows_the_query_syntax_of_the_key_table() {
    // In a Markdown table a `|` is written `\|`, even in code.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("read README.md")
        .replace("\\|", "|");
    for syntax in FILTER_SYNTAX.iter().chain(SEARCH_SYNTAX) {
        assert!(
            readme.contains(&format!("`{}`", syntax.example)),
            "README does not show `{}` ({})",
            syntax.example,
            syntax.means
        );
    }
}

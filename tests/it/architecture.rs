//! The layers inside each crate run one way: no import circle between the
//! modules of the program, the engine, the stores, the core or the JSONL
//! readers.
//!
//! The check reads each file's `crate::…` and `super::…` paths and its
//! `use child::…` lines (comments and the test modules left out), resolves
//! each to the longest module path that is a file, and looks for a cycle in
//! that graph (a module reaching itself again). A re-export used through
//! the crate root (`crate::Name`) is an edge to the root: import from the
//! defining module to keep edges one way. `tools/import-cycles.py DIR`
//! prints the same graph's circles, for a person.
//!
//! In the stores crate, the types that name each other (`Store`, whose
//! methods take a `SessionRecord` naming its `StoreKind`, which holds a
//! `&dyn Store`; `ScanEvent` and the walk the trait's default `scan` runs)
//! live in one module, `store`, and the kinds import from the defining
//! modules, never the crate root's re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `root` but test files, as (module path, file).
fn modules(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap();
            if !name.ends_with(".rs") || name.ends_with("tests.rs") || name == "testkit.rs" {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_str().unwrap().to_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let mut module = vec!["crate".to_owned()];
            module.extend(parts);
            out.insert(module.join("::"), path);
        }
    }
    out
}

/// The code of `text` that is not a comment and not the test module
/// (`#[cfg(test)]`, or `#[cfg(all(test, …))]`, then `mod tests {`).
fn code(text: &str) -> String {
    let tests = regex::Regex::new(r"#\[cfg\((?:all\()?test\b[^\]]*\]\s*mod tests \{").unwrap();
    let text = tests.split(text).next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The longest module of `files` that `path` (`crate::a::b::C`,
/// `super::x`), written in `module`, names.
fn resolve(files: &BTreeMap<String, PathBuf>, module: &str, path: &str) -> Option<String> {
    let mut current: Vec<&str> = module.split("::").collect();
    for segment in path.split("::") {
        match segment {
            "crate" => current = vec!["crate"],
            "super" => {
                current.pop();
            }
            "self" => {}
            s => current.push(s),
        }
    }
    while !current.is_empty() {
        let joined = current.join("::");
        if files.contains_key(&joined) {
            return Some(joined);
        }
        current.pop();
    }
    None
}

/// The paths a `use` tree names, braces expanded (nested too):
/// `crate::{a::{b, c::D}, e as f}` is `crate::a::b`, `crate::a::c::D`,
/// `crate::e`; `self` inside braces is the prefix itself.
fn use_paths(tree: &str) -> Vec<String> {
    let renamed = regex::Regex::new(r"\s+as\s+[A-Za-z_][A-Za-z0-9_]*").unwrap();
    let tree: String = renamed
        .replace_all(tree, "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut out = Vec::new();
    expand("", &tree, &mut out);
    out
}

/// `prefix` joined with each path of the use tree `tree` into `out`.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let join = |rest: &str| match (prefix, rest) {
        ("", r) => r.to_owned(),
        (p, "" | "self") => p.to_owned(),
        (p, r) => format!("{p}::{r}"),
    };
    let Some(open) = tree.find('{') else {
        out.push(join(tree.trim_end_matches("::*")));
        return;
    };
    let head = join(tree[..open].trim_end_matches("::"));
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let (mut depth, mut from) = (0usize, 0usize);
    for (i, c) in inner.char_indices().chain([(inner.len(), ',')]) {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                let part = &inner[from..i];
                if !part.is_empty() {
                    expand(&head, part, out);
                }
                from = i + 1;
            }
            _ => {}
        }
    }
}

/// Each module's edges to the modules it names: every path of its `use`
/// trees (braces expanded) that starts at `crate`, `super`, `self` or one
/// of its child modules, and every `crate::…`/`super::…` path in its other
/// code. An item named through the root (`crate::Name`) or a parent
/// (`super::Name`) is an edge to that module.
fn edges(files: &BTreeMap<String, PathBuf>) -> BTreeMap<String, BTreeSet<String>> {
    let uses = regex::Regex::new(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);").unwrap();
    let path =
        regex::Regex::new(r"(?:^|[^A-Za-z0-9_:$])((?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
            .unwrap();
    let mut out = BTreeMap::new();
    for (module, file) in files {
        let text = code(&std::fs::read_to_string(file).unwrap());
        let mut to = BTreeSet::new();
        for c in uses.captures_iter(&text) {
            for used in use_paths(&c[1]) {
                let first = used.split("::").next().unwrap_or("");
                let target = if matches!(first, "crate" | "super" | "self") {
                    resolve(files, module, &used)
                } else if files.contains_key(&format!("{module}::{first}")) {
                    resolve(files, module, &format!("self::{used}"))
                } else {
                    None
                };
                to.extend(target);
            }
        }
        for c in path.captures_iter(&uses.replace_all(&text, "")) {
            to.extend(resolve(files, module, &c[1]));
        }
        to.remove(module);
        out.insert(module.clone(), to);
    }
    out
}

/// A cycle of `graph`, as the modules on it, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut marks: BTreeMap<&str, Mark> = graph.keys().map(|k| (k.as_str(), Mark::New)).collect();
    for start in graph.keys() {
        if marks[start.as_str()] != Mark::New {
            continue;
        }
        // Depth first, with the path kept to report the cycle.
        let mut path: Vec<(&str, Vec<&str>)> =
            vec![(start, graph[start].iter().map(String::as_str).collect())];
        marks.insert(start, Mark::Open);
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            match next.pop() {
                Some(to) => match marks.get(to).copied() {
                    Some(Mark::Open) => {
                        let from = path.iter().position(|(n, _)| *n == to).unwrap();
                        let mut found: Vec<String> =
                            path[from..].iter().map(|(n, _)| (*n).to_owned()).collect();
                        found.push(to.to_owned());
                        return Some(found);
                    }
                    Some(Mark::New) => {
                        marks.insert(to, Mark::Open);
                        path.push((to, graph[to].iter().map(String::as_str).collect()));
                    }
                    _ => {}
                },
                None => {
                    marks.insert(node, Mark::Done);
                    path.pop();
                }
            }
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_circle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in [
        "src",
        "crates/stores/src",
        "crates/core/src",
        "crates/engine/src",
        "crates/jsonl/src",
    ] {
        let files = modules(&workspace.join(dir));
        assert!(files.len() > 3, "{dir}: no modules found");
        let graph = edges(&files);
        assert!(
            cycle(&graph).is_none(),
            "{dir}: an import circle: {}",
            cycle(&graph).unwrap().join(" → ")
        );
    }
}

#[test]
fn the_check_finds_a_circle_when_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.path().join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(
        dir.path().join("b.rs"),
        "// use crate::a::A;\npub struct B;\n",
    )
    .unwrap();
    let files = modules(dir.path());
    assert_eq!(cycle(&edges(&files)), None, "a comment is no edge");
    std::fs::write(dir.path().join("b.rs"), "pub struct B(crate::a::A);\n").unwrap();
    let found = cycle(&edges(&files)).expect("a → b → a");
    assert_eq!(found.first(), found.last());
    assert_eq!(found.len(), 3);
}

#[test]
fn use_trees_are_expanded_nested_braces_too() {
    assert_eq!(
        use_paths("crate::{a::{b, c::D}, e as f, g::*, self}"),
        [
            "crate::a::b",
            "crate::a::c::D",
            "crate::e",
            "crate::g",
            "crate"
        ]
    );
    assert_eq!(
        use_paths("super::x::{self, Y}"),
        ["super::x", "super::x::Y"]
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("b")).unwrap();
    std::fs::write(dir.path().join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.path().join("b/mod.rs"), "mod c;\n").unwrap();
    std::fs::write(
        dir.path().join("a.rs"),
        "use crate::{\n    b::{c::C, self},\n};\npub struct A;\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b/c.rs"), "pub struct C;\n").unwrap();
    let files = modules(dir.path());
    assert_eq!(cycle(&edges(&files)), None);
    // The child names the root's item: an edge to the root, through braces.
    std::fs::write(
        dir.path().join("b/c.rs"),
        "use crate::{a::{A as Other}};\npub struct C(Other);\n",
    )
    .unwrap();
    let found = cycle(&edges(&files)).expect("a → b::c → a");
    assert!(found.contains(&"crate::b::c".to_owned()), "{found:?}");
    // An item of the parent through `super::` is an edge to it.
    std::fs::write(dir.path().join("b/c.rs"), "pub struct C(super::B);\n").unwrap();
    std::fs::write(
        dir.path().join("b/mod.rs"),
        "mod c;\nuse c::C;\npub struct B;\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.rs"), "pub struct A;\n").unwrap();
    assert!(cycle(&edges(&files)).is_some(), "b → b::c → b");
}

/// Lines a source file may have before its test module: past this, split
/// it along its seams (ARCHITECTURE.md's "no file over ~600 lines").
const MAX_LINES: usize = 650;

/// The lines of `text` before its test module (`#[cfg(test)]` or
/// `#[cfg(all(test, …))]`, then `mod tests {`), all of them without one.
fn lines_before_tests(text: &str) -> usize {
    let tests = regex::Regex::new(r"(?m)^#\[cfg\((?:all\()?test\b[^\]]*\]\s*mod tests \{").unwrap();
    let code = tests.find(text).map_or(text, |m| &text[..m.start()]);
    code.lines().count()
}

#[test]
fn no_source_file_passes_the_line_limit_before_its_tests() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut over = Vec::new();
    for dir in [
        "src",
        "crates/stores/src",
        "crates/core/src",
        "crates/engine/src",
        "crates/jsonl/src",
    ] {
        for file in modules(&workspace.join(dir)).into_values() {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines = lines_before_tests(&text);
            let name = file.strip_prefix(workspace).unwrap().display().to_string();
            if lines > MAX_LINES {
                over.push(format!("{name}: {lines} lines before its tests"));
            }
        }
    }
    assert!(
        over.is_empty(),
        "split along the seams:\n{}",
        over.join("\n")
    );
}

#[test]
fn the_line_limit_counts_only_what_is_before_the_test_module() {
    let code = "fn a() {}\n".repeat(MAX_LINES + 1);
    assert_eq!(lines_before_tests(&code), MAX_LINES + 1);
    let text = format!(
        "{}#[cfg(test)]\nmod tests {{\n{code}}}\n",
        "fn b() {}\n".repeat(3)
    );
    assert_eq!(lines_before_tests(&text), 3);
    let text = format!("fn c() {{}}\n#[cfg(all(test, unix))]\nmod tests {{\n{code}}}\n");
    assert_eq!(lines_before_tests(&text), 1);
}

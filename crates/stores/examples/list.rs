//! List the sessions of every agent, newest first, and print the
//! conversation of the newest one.
//!
//! ```sh
//! # Every agent's default location (~/.claude/projects, ~/.codex/sessions, …):
//! cargo run -p session-ref-stores --example list
//! # Or given roots, as KIND=DIR (kinds: hydra, claude, codex, gemini):
//! cargo run -p session-ref-stores --example list -- hydra=assets/demo
//! ```

use session_ref_stores::model::{Block, EventKind};
use session_ref_stores::{kind_by_name, Catalog, StoreRoots};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut roots = StoreRoots::new();
    for arg in std::env::args().skip(1) {
        let (name, dir) = arg.split_once('=').ok_or("expected KIND=DIR")?;
        let kind = kind_by_name(name).ok_or_else(|| format!("unknown kind {name}"))?;
        roots = roots.with(kind, dir);
    }
    if roots.iter().next().is_none() {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        roots = StoreRoots::default_locations(|name| std::env::var(name).ok(), home.as_deref())
            .existing();
    }

    // Listing reads only what it needs of each log (ids, cwd, creation time).
    let catalog = Catalog::load(&roots);
    for record in catalog.ordered().take(10) {
        let title = catalog.read_title(record)?.unwrap_or_default();
        println!(
            "{:<7} {}  {}  {}",
            record.kind,
            printable(&record.created_at),
            printable(&record.id),
            printable(&title)
        );
    }

    // The newest session's conversation, folded as the agent shows it
    // (compactions applied).
    let Some(newest) = catalog.ordered().next() else {
        println!("no sessions found");
        return Ok(());
    };
    println!(
        "\n{} ({}):",
        printable(&newest.id),
        printable(&newest.path.to_string_lossy())
    );
    let surface = catalog.read_surface(newest)?;
    for event in &surface.events {
        let (who, content) = match &event.kind {
            EventKind::UserMessage { content, .. } => ("user", content),
            EventKind::AssistantMessage { content } => ("assistant", content),
            EventKind::ToolResult => continue,
        };
        for block in content {
            if let Block::Text(text) = block {
                let line = text.lines().next().unwrap_or("");
                println!("  {who:>9}: {}", printable(line));
            }
        }
    }
    Ok(())
}

/// Log text as a terminal may show it: at most 100 characters, control
/// characters (escape sequences) as spaces.
fn printable(text: &str) -> String {
    text.chars()
        .take(100)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

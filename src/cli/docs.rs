//! The texts made from the command line: the start and the end of
//! `--help` (the store kinds from the registry, the picker's keys from the
//! one key table, the exit codes), the manual pages and the completion
//! scripts. Each is given the command it documents, so nothing here
//! imports its definition.

use std::path::PathBuf;

use crate::config::Command;
use crate::error::{Error, Result};
use session_ref_stores::REGISTRY;

/// The first line of `--help`.
pub(super) const SUMMARY: &str =
    "Pick coding-agent sessions and put byte-budgeted, read-only snapshots of them into a prompt.";

/// The start of `session-ref --help`: what the tool does and where
/// sessions come from, the sources named by the registry's kinds (each
/// store flag's own help states its default location).
pub(super) fn long_about() -> String {
    let origins: Vec<&str> = REGISTRY.iter().map(|k| k.store().origin()).collect();
    let sources = match origins.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "{SUMMARY}\n\nWith no command, opens the interactive picker. Sessions come from \
         {sources}; with no store flag, the default location of each store flag that \
         exists is read."
    )
}

/// The end of `session-ref --help`: the picker's query syntax and keys,
/// from the one table of [`crate::keys`] (as the picker's help shows
/// them), and the exit codes.
pub(super) fn long_help_end() -> String {
    use crate::keys::HelpRow;
    let mut out = String::from(
        "Mouse (unless --no-mouse): a click highlights a session, a double click inserts\n  \
         it; a click focuses the filter, or the prompt with the cursor where it lands;\n  \
         the wheel scrolls what it is over.\n\n\
         Picker keys and query syntax (f1 in the picker shows them too):\n",
    );
    for row in crate::keys::help_rows() {
        match row {
            HelpRow::Heading(title) => out.push_str(&format!("  {title}\n")),
            HelpRow::Note(note) => out.push_str(&format!("  {note}\n")),
            HelpRow::Entry { keys, what } => {
                // Descriptions wrap under themselves past 100 columns.
                let rows = textwrap::wrap(what, 100 - 29);
                for (i, part) in rows.iter().enumerate() {
                    let keys = if i == 0 { keys.as_str() } else { "" };
                    out.push_str(&format!("    {keys:<24} {part}\n"));
                }
            }
        }
    }
    out.push_str(
        "\nExit codes:\n  \
         0    done; `search` found something (here or on a remote)\n  \
         1    failed: stderr says `session-ref: CODE: message`; or `search` found nothing\n       (no error line, as grep)\n  \
         2    usage error: an unknown flag, a flag value of the wrong type or form\n       (`--preview-window up`, `--tmux up`), a store flag naming no store (missing,\n       a FIFO, a device, a link to a file, a file that is not a session), `search`\n       with a bad `--regex`, an open \"phrase\" or no store to search\n  \
         130  cancelled (Ctrl-C, SIGTERM) or aborted in the picker\n\n\
         `candidates` with nothing matching exits 0, as the reference (SPEC §6).\n\n\
         Manual pages: `session-ref man COMMAND` prints a command's (`man search`, `man hook\n  \
         install`); `session-ref man --dir DIR` writes every page into DIR.\n",
    );
    out
}

/// Respell the states of clap_complete's bash script the one way. Its
/// loop over the typed words names the state of a subcommand after the
/// binary with each hyphen as `__` (`session__ref__subcmd__candidates`),
/// but its arms that complete each state escape the hyphen as a
/// subcommand separator (`session__subcmd__ref__subcmd__candidates`), so
/// below the top level no arm matched and bash fell back to file names
/// (clap-rs/clap#6421, open in clap_complete 4.6). The arms are renamed as
/// the loop names them; once clap_complete agrees with itself this
/// changes nothing. `tests/completions.rs` runs the script.
fn bash_states_agree(script: String, bin: &str) -> String {
    let escaped_as_separator = format!("{}__subcmd__", bin.replace('-', "__subcmd__"));
    let as_the_loop_names_it = format!("{}__subcmd__", bin.replace('-', "__"));
    script.replace(&escaped_as_separator, &as_the_loop_names_it)
}

/// The command (`full`, as `--help` shows it) as its manual pages show
/// it: built, so that each subcommand knows its full name
/// (`session-ref-search`) and has the global options, and without clap's
/// `help` subcommand, which has no page.
pub(super) fn man_root(full: clap::Command) -> clap::Command {
    let mut cmd = full.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The roff page of `cmd`.
fn man_page(cmd: &clap::Command) -> Result<String> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .map_err(|e| Error::invalid_config(format!("cannot render the manual: {e}")))?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// Every page: `cmd`'s and, depth first, each visible subcommand's, as
/// (file name, roff). The main page lists these and no other.
fn man_pages(cmd: &clap::Command, out: &mut Vec<(String, String)>) -> Result<()> {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    out.push((format!("{name}.1"), man_page(cmd)?));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        man_pages(sub, out)?;
    }
    Ok(())
}

/// `man [COMMAND…] [--dir DIR]`: one page, or every page for a directory,
/// of the command `full`.
pub(super) fn man_command(
    full: clap::Command,
    path: &[String],
    dir: Option<PathBuf>,
) -> Result<Command> {
    let root = man_root(full);
    if let Some(dir) = dir {
        let mut pages = Vec::new();
        man_pages(&root, &mut pages)?;
        return Ok(Command::ManPages { dir, pages });
    }
    let mut cmd = &root;
    for name in path {
        cmd = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .find(|s| s.get_name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = cmd
                    .get_subcommands()
                    .filter(|s| !s.is_hide_set())
                    .map(clap::Command::get_name)
                    .collect();
                Error::invalid_config(format!(
                    "man: no command {:?} under `{}` (its commands: {})",
                    name,
                    cmd.get_bin_name().unwrap_or("session-ref"),
                    known.join(", ")
                ))
            })?;
    }
    Ok(Command::Man(man_page(cmd)?))
}

/// `completions SHELL`: the completion script of the command `cmd`.
pub(super) fn completions(shell: clap_complete::Shell, mut cmd: clap::Command) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "session-ref", &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        clap_complete::Shell::Bash => bash_states_agree(script, "session-ref"),
        _ => script,
    }
}

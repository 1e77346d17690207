//! The receipt of `setup` and `setup --undo`.
//!
//! Why a receipt: undo must put each settings file back exactly as it was,
//! which the uninstallers alone cannot (they remove our entries, but a file
//! that setup created, or whose layout an insertion touched, would not be
//! byte for byte the same). So setup records, for every file it wrote, the
//! text before its first write and after its last one, the backups it
//! made and the directories it created. Undo then, for each file:
//!
//! - still holding exactly what setup wrote: puts the earlier text back
//!   (or removes the file, and the directories, setup created), and
//!   removes the backups setup made of it (their text is that earlier one);
//! - edited since (by the user, an agent, another install): leaves the
//!   file to the uninstallers of the parts that wrote it, which remove
//!   session-ref's entries and nothing else.
//!
//! The receipt holds settings text (which may hold secrets), so it is
//! private: 0600 in a 0700 directory ([`session_ref_stores::private`]),
//! in the state directory, replaced atomically. A later `setup` adds to
//! it; a file the user edited between two setups is no longer restored
//! whole (its recorded earlier text would undo the user's edit), only
//! cleaned by the uninstallers.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Part;
use crate::agents::{Agent, InstallEnv, Scope};
use crate::display::{escape_unsafe, path_for_person};
use crate::error::{Error, Result};
use crate::settings_file::{self, Installed};

/// The receipt's file name in the state directory.
pub const FILE: &str = "setup-receipt.json";

/// The receipt's format version.
const VERSION: u32 = 1;

/// What setup did, kept for `--undo`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// The format version.
    pub version: u32,
    /// Every file setup wrote.
    pub files: Vec<FileRecord>,
    /// Every part setup installed, with the files it wrote.
    pub parts: Vec<PartRecord>,
}

/// One file setup wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The file, as the installers name it.
    pub path: PathBuf,
    /// Its text before setup first wrote it (`None`: setup created it).
    pub before: Option<String>,
    /// Its text after setup last wrote it.
    pub after: String,
    /// Whether `before` may be put back whole: false once the file was
    /// found edited between two setups.
    pub restorable: bool,
    /// The backups setup made of it.
    pub backups: Vec<PathBuf>,
    /// The directories setup created for it, deepest first.
    pub created_dirs: Vec<PathBuf>,
}

/// One part (hook or MCP server) of one agent that setup installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartRecord {
    /// The agent's word (`claude`).
    pub agent: String,
    /// Which part.
    pub part: Part,
    /// The project whose settings it went to (`setup --project`); `None`:
    /// the user's settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    /// The files its install wrote.
    pub files: Vec<PathBuf>,
}

impl PartRecord {
    /// The scope it was installed in.
    pub fn scope(&self) -> Scope {
        match self.project {
            Some(_) => Scope::Project,
            None => Scope::User,
        }
    }
}

/// The directories missing above `file`, deepest first (what writing it
/// will create).
pub fn missing_dirs(file: &Path) -> Vec<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(Path::to_path_buf)
        .collect()
}

impl Receipt {
    /// The receipt at `path` (empty when there is none); a damaged one is
    /// an error, never ignored (undo would lose what it says).
    pub fn load(path: &Path) -> Result<Receipt> {
        match std::fs::read(path) {
            Ok(bytes) => {
                let receipt: Receipt = serde_json::from_slice(&bytes).map_err(|e| {
                    Error::invalid_config(format!(
                        "{} is not a setup receipt ({e}); move it away to start afresh",
                        path.display()
                    ))
                })?;
                if receipt.version != VERSION {
                    return Err(Error::invalid_config(format!(
                        "{} is a setup receipt of another version ({})",
                        path.display(),
                        receipt.version
                    )));
                }
                Ok(receipt)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Receipt {
                version: VERSION,
                ..Receipt::default()
            }),
            Err(e) => Err(Error::invalid_config(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }

    /// Write the receipt to `path`, private and atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let bytes = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::internal(format!("cannot write the setup receipt: {e}")))?;
        session_ref_stores::private::dir(dir)
            .and_then(|()| session_ref_stores::private::write_atomic(path, &bytes))
            .map_err(|e| Error::invalid_config(format!("cannot write {}: {e}", path.display())))
    }

    /// Record what one part's install wrote, in the settings of `project`
    /// (`None`: the user's); `created`: the directories that were missing
    /// before it.
    pub fn record(
        &mut self,
        agent: Agent,
        part: Part,
        project: Option<&Path>,
        done: &Installed,
        created: &[PathBuf],
    ) {
        let mut files = Vec::new();
        // One backup per write of a file that was there, in order.
        let mut made = done.backups.iter();
        for write in &done.writes {
            files.push(write.path.clone());
            let backups: Vec<PathBuf> = match write.before {
                Some(_) => made.next().cloned().into_iter().collect(),
                None => Vec::new(),
            };
            let dirs: Vec<PathBuf> = created
                .iter()
                .filter(|d| write.path.starts_with(d))
                .cloned()
                .collect();
            match self.files.iter_mut().find(|f| f.path == write.path) {
                Some(known) => {
                    // Edited since setup wrote it: the earlier text is stale.
                    known.restorable &= write.before.as_deref() == Some(known.after.as_str());
                    known.after = write.after.clone();
                    known.backups.extend(backups);
                }
                None => self.files.push(FileRecord {
                    path: write.path.clone(),
                    before: write.before.clone(),
                    after: write.after.clone(),
                    restorable: true,
                    backups,
                    created_dirs: dirs,
                }),
            }
        }
        let name = agent.as_str().to_owned();
        let project = project.map(Path::to_path_buf);
        match self
            .parts
            .iter_mut()
            .find(|p| p.agent == name && p.part == part && p.project == project)
        {
            Some(known) => {
                for file in files {
                    if !known.files.contains(&file) {
                        known.files.push(file);
                    }
                }
            }
            None => self.parts.push(PartRecord {
                agent: name,
                part,
                project,
                files,
            }),
        }
    }
}

/// What undo did to one file.
enum Undone {
    /// Put back as it was (or removed, setup having created it).
    Restored,
    /// Edited since: its parts are uninstalled instead.
    Edited,
}

/// Undo one file under its lock: restore it when it holds what setup wrote.
fn undo_file(file: &FileRecord) -> Result<Undone> {
    if let Some(why) = super::refused(&file.path) {
        return Err(Error::invalid_config(why));
    }
    let _lock = settings_file::lock(&[&file.path], false)?;
    let now = settings_file::read(&file.path)?;
    if !file.restorable || now.as_deref() != Some(file.after.as_str()) {
        return Ok(Undone::Edited);
    }
    match &file.before {
        Some(text) => settings_file::restore(&file.path, text)?,
        None => settings_file::discard(&file.path)?,
    }
    Ok(Undone::Restored)
}

/// `setup --undo`: put back every file of the receipt at `path`, then
/// remove the receipt. The text for stdout, and whether all went well (on
/// a problem the receipt is kept, so that undo can be run again).
pub fn undo(env: &InstallEnv<'_>, path: &Path) -> Result<(String, bool)> {
    let receipt = Receipt::load(path)?;
    if receipt.files.is_empty() && receipt.parts.is_empty() {
        return Ok((
            "nothing to undo: setup has not changed any file\n".to_owned(),
            true,
        ));
    }
    let mut out = String::new();
    let mut ok = true;
    let mut edited = Vec::new();
    for file in &receipt.files {
        let shown = path_for_person(&file.path);
        match undo_file(file) {
            Ok(Undone::Restored) => {
                for backup in &file.backups {
                    let _ = std::fs::remove_file(backup);
                }
                if file.before.is_some() {
                    let _ = writeln!(out, "restored {shown} as it was");
                } else {
                    for dir in &file.created_dirs {
                        // Only when empty: anything put there since stays.
                        let _ = std::fs::remove_dir(dir);
                    }
                    let _ = writeln!(out, "removed {shown} (setup created it)");
                }
            }
            Ok(Undone::Edited) => {
                let _ = writeln!(
                    out,
                    "{shown} was edited since setup: removing session-ref's entries only"
                );
                edited.push(file.path.clone());
            }
            Err(e) => {
                let _ = writeln!(out, "{shown}: {}", escape_unsafe(&e.message));
                ok = false;
            }
        }
    }
    for part in &receipt.parts {
        if !part.files.iter().any(|f| edited.contains(f)) {
            continue;
        }
        let Some(agent) = Agent::named(&part.agent) else {
            continue;
        };
        let product = agent.integration().product;
        // A project's entries are found from its directory, wherever undo runs.
        let in_project = part
            .project
            .as_deref()
            .map(|cwd| InstallEnv { cwd, ..*env });
        match part
            .part
            .remove(agent, part.scope(), in_project.as_ref().unwrap_or(env))
        {
            Ok(report) => {
                for line in report.lines() {
                    let _ = writeln!(out, "{product}: {}", escape_unsafe(line));
                }
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "{product}: {}: {}",
                    part.part.as_str(),
                    escape_unsafe(&e.message)
                );
                ok = false;
            }
        }
    }
    if ok {
        std::fs::remove_file(path)
            .map_err(|e| Error::invalid_config(format!("cannot remove {}: {e}", path.display())))?;
        out.push_str("setup is undone\n");
    } else {
        let _ = writeln!(
            out,
            "the receipt {} is kept: fix the above and run session-ref setup --undo again",
            path_for_person(path)
        );
    }
    Ok((out, ok))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings_file::Write;

    #[test]
    fn backups_go_to_the_files_that_were_there_and_a_later_edit_is_not_restored() {
        let write = |path: &str, before: Option<&str>, after: &str| Write {
            path: PathBuf::from(path),
            before: before.map(str::to_owned),
            after: after.to_owned(),
        };
        let codex = Agent::named("codex").unwrap();
        let mut receipt = Receipt::default();
        let done = Installed {
            report: String::new(),
            writes: vec![
                write("/h/.codex/hooks.json", None, "ours"),
                write("/h/.codex/config.toml", Some("mine"), "mine+ours"),
            ],
            backups: vec![PathBuf::from("/h/.codex/config.toml.bak")],
        };
        receipt.record(codex, Part::Hook, None, &done, &[]);
        assert!(receipt.files[0].backups.is_empty());
        assert_eq!(
            receipt.files[1].backups,
            [PathBuf::from("/h/.codex/config.toml.bak")]
        );
        // The MCP part then finds config.toml edited by hand meanwhile.
        let later = Installed {
            report: String::new(),
            writes: vec![write("/h/.codex/config.toml", Some("edited"), "edited+mcp")],
            backups: vec![PathBuf::from("/h/.codex/config.toml.bak2")],
        };
        receipt.record(codex, Part::Mcp, None, &later, &[]);
        let config = &receipt.files[1];
        assert!(!config.restorable);
        assert_eq!(config.before.as_deref(), Some("mine"));
        assert_eq!(config.after, "edited+mcp");
        assert_eq!(receipt.parts.len(), 2);
    }
}

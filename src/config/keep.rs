//! The archive a run keeps and lists ([`session_ref_stores::archive`]),
//! from `keep`'s flags and the `[keep]` table of the config file
//! (`$XDG_CONFIG_HOME/session-ref/config.toml`, see [`super::remotes`]):
//!
//! ```toml
//! [keep]                       # present: every listing keeps what it lists
//! max_size = "2G"              # the bound of the copies (compressed); default 1G
//! dir = "/data/session-ref"    # default: $XDG_DATA_HOME/session-ref/archive
//! ```
//!
//! Without a `[keep]` table nothing is kept unless `session-ref keep` is
//! run; an archive that exists is listed either way.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use session_ref_stores::archive::{self, Archive, DEFAULT_MAX_BYTES};

/// The archive settings of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeepSettings {
    /// The archive directory; `None` without a home directory.
    pub dir: Option<PathBuf>,
    /// Whether every listing keeps what it lists (a `[keep]` table).
    pub auto: bool,
    /// The bound of the copies, compressed bytes.
    pub max_bytes: u64,
}

impl Default for KeepSettings {
    fn default() -> Self {
        KeepSettings {
            dir: None,
            auto: false,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl KeepSettings {
    /// The settings from the environment and the config file (when it
    /// exists).
    pub fn load(
        env: &impl Fn(&str) -> Option<String>,
        home: Option<&Path>,
    ) -> Result<KeepSettings> {
        let mut settings = KeepSettings {
            dir: archive::default_dir(env, home),
            ..KeepSettings::default()
        };
        let Some(path) = super::remotes::config_file(env, home).filter(|p| p.is_file()) else {
            return Ok(settings);
        };
        let shown = crate::display::path_for_person(&path);
        let bad = |why: String| Error::invalid_config(format!("{shown}: {why}"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| bad(format!("cannot read it: {e}")))?;
        let doc: toml_edit::DocumentMut = text.parse().map_err(|e| bad(format!("{e}")))?;
        let Some(item) = doc.get("keep") else {
            return Ok(settings);
        };
        let table = item
            .as_table()
            .ok_or_else(|| bad("keep must be a [keep] table".to_owned()))?;
        settings.auto = true;
        if let Some(size) = table.get("max_size") {
            let text = match (size.as_str(), size.as_integer()) {
                (Some(text), _) => text.to_owned(),
                (None, Some(n)) => n.to_string(),
                _ => String::new(),
            };
            settings.max_bytes = parse_size(&text)
                .ok_or_else(|| bad(format!("[keep] max_size: {}", SIZE_SYNTAX)))?;
        }
        if let Some(dir) = table.get("dir") {
            let dir = dir
                .as_str()
                .filter(|d| Path::new(d).is_absolute())
                .ok_or_else(|| bad("[keep] dir must be an absolute path".to_owned()))?;
            settings.dir = Some(PathBuf::from(dir));
        }
        Ok(settings)
    }

    /// The archive of these settings, keeping with every listing when
    /// `auto` (and the settings say so); `None` without a directory.
    pub fn archive(&self, auto: bool) -> Option<Archive> {
        let dir = self.dir.clone()?;
        Some(
            Archive::new(dir)
                .with_auto(auto && self.auto)
                .with_max_bytes(self.max_bytes),
        )
    }
}

/// What a size must look like, for error messages.
pub const SIZE_SYNTAX: &str =
    "a size must be a whole number of bytes, or one followed by K, M, G or T (powers of 1024), at least 1";

/// `SIZE`: bytes, or a whole number followed by `K`, `M`, `G` or `T`
/// (powers of 1024; `KB`, `KiB` and lower case too). `None` when it is
/// not one, or is 0.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    number.checked_mul(1u64 << shift).filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bytes_or_powers_of_1024() {
        assert_eq!(parse_size("1048576"), Some(1 << 20));
        assert_eq!(parse_size("500M"), Some(500 << 20));
        assert_eq!(parse_size("2 GiB"), Some(2 << 30));
        assert_eq!(parse_size("64k"), Some(64 << 10));
        for bad in ["", "0", "1.5G", "G", "-1", "12Q", "99999999999T"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_keep_table_turns_keeping_on_with_its_bound_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("session-ref/config.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let config = dir.path().display().to_string();
        let env = |k: &str| (k == "XDG_CONFIG_HOME").then(|| config.clone());
        let none = KeepSettings::load(&env, Some(Path::new("/h"))).unwrap();
        assert_eq!(
            none,
            KeepSettings {
                dir: Some(PathBuf::from("/h/.local/share/session-ref/archive")),
                ..KeepSettings::default()
            }
        );
        std::fs::write(&file, "[keep]\nmax_size = \"2G\"\ndir = \"/data/a\"\n").unwrap();
        let on = KeepSettings::load(&env, Some(Path::new("/h"))).unwrap();
        assert_eq!((on.auto, on.max_bytes), (true, 2 << 30));
        assert_eq!(on.dir.as_deref(), Some(Path::new("/data/a")));
        assert!(on.archive(true).unwrap().auto());
        assert!(!on.archive(false).unwrap().auto());
        std::fs::write(&file, "[keep]\nmax_size = \"lots\"\n").unwrap();
        let err = KeepSettings::load(&env, Some(Path::new("/h"))).unwrap_err();
        assert!(err.message.contains("max_size"), "{}", err.message);
    }
}

use super::*;

#[test]
fn default_roots_follow_goose_s_paths() {
    let home = Some(Path::new("/home/u"));
    let none = |_: &str| None;
    assert_eq!(
        Goose.default_roots(&none, home),
        [PathBuf::from("/home/u/.local/share/goose")]
    );
    let xdg = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_owned());
    assert_eq!(Goose.default_roots(&xdg, home), [PathBuf::from("/x/goose")]);
    let root = |k: &str| match k {
        "GOOSE_PATH_ROOT" => Some("/g".to_owned()),
        "XDG_DATA_HOME" => Some("/x".to_owned()),
        _ => None,
    };
    assert_eq!(Goose.default_roots(&root, home), [PathBuf::from("/g/data")]);
    // Goose ignores a relative GOOSE_PATH_ROOT.
    let relative = |k: &str| (k == "GOOSE_PATH_ROOT").then(|| "rel".to_owned());
    assert_eq!(
        Goose.default_roots(&relative, home),
        [PathBuf::from("/home/u/.local/share/goose")]
    );
    assert_eq!(
        crate::default_roots_help(KIND),
        "$GOOSE_PATH_ROOT/data, else $XDG_DATA_HOME/goose, else ~/.local/share/goose"
    );
}

#[test]
fn a_root_is_the_data_directory_its_sessions_folder_or_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    std::fs::write(sessions.join("sessions.db"), b"").unwrap();
    std::fs::write(sessions.join("b.jsonl"), b"{}").unwrap();
    std::fs::write(sessions.join("a.jsonl"), b"{}").unwrap();
    std::fs::write(sessions.join("notes.txt"), b"").unwrap();
    let both = Layout {
        db: Some(sessions.join("sessions.db")),
        legacy: vec![sessions.join("a.jsonl"), sessions.join("b.jsonl")],
    };
    assert_eq!(Layout::of(dir.path()).unwrap(), both);
    assert_eq!(Layout::of(&sessions).unwrap(), both);
    assert_eq!(
        Layout::of(&sessions.join("a.jsonl")).unwrap(),
        Layout {
            db: Some(sessions.join("sessions.db")),
            legacy: vec![sessions.join("a.jsonl")],
        }
    );
    assert_eq!(
        Layout::of(&sessions.join("sessions.db")).unwrap(),
        Layout {
            db: Some(sessions.join("sessions.db")),
            legacy: Vec::new(),
        }
    );
    assert!(Goose.wants(&sessions.join("sessions.db")));
    assert!(Goose.wants(&sessions.join("a.jsonl")));
    assert!(!Goose.wants(&sessions.join("notes.txt")));
}

//! The command line end to end: parsed, converted into the config, its
//! help, manual and completions, and its errors.

use clap::Parser;

use super::*;
use crate::config::{Command, Config, Destination, PickFormat, PreviewWindow, SortBy};
use crate::error::{ErrorCode, Result};

fn config(args: &[&str]) -> Result<Config> {
    let cli =
        Cli::try_parse_from(std::iter::once("session-ref").chain(args.iter().copied())).unwrap();
    cli.into_config(
        |_| None,
        Some(std::path::Path::new("/nonexistent-home")),
        Some("/here".into()),
    )
}

#[test]
fn bare_invocation_is_the_picker() {
    let c = config(&[]).unwrap();
    assert!(matches!(c.command, Command::Pick(_)));
    assert_eq!(c.target.cwd.as_deref(), Some("/here"));
    assert!(c.roots.is_empty() && !c.roots_explicit);
}

#[test]
fn global_flags_anywhere() {
    let c = config(&[
        "candidates",
        "q",
        "--store",
        "/s",
        "--cwd",
        "/w",
        "--max-references",
        "2",
    ])
    .unwrap();
    assert_eq!(
        c.roots
            .iter()
            .map(|(k, p)| (k.as_str(), p.as_path()))
            .collect::<Vec<_>>(),
        [("hydra", std::path::Path::new("/s"))]
    );
    assert_eq!(c.target.cwd.as_deref(), Some("/w"));
    assert_eq!(c.limits.max_references, 2);
    assert_eq!(
        c.command,
        Command::Candidates {
            query: "q".into(),
            limit: 50,
            fuzzy: false,
            json: false,
            sort: SortBy::Created,
        }
    );
}

#[test]
fn cwd_is_normalised_as_sessions_record_it() {
    let cwd = |arg: &str| config(&["pick", "--cwd", arg]).unwrap().target.cwd;
    assert_eq!(cwd("/w/p/").as_deref(), Some("/w/p"));
    assert_eq!(cwd("/w/./q/../p//").as_deref(), Some("/w/p"));
    assert_eq!(cwd("sub/dir/").as_deref(), Some("/here/sub/dir"));
    assert_eq!(cwd(".").as_deref(), Some("/here"));
    assert_eq!(cwd("/").as_deref(), Some("/"));
    // The commands keep it as given: the reference compares it exactly.
    let exact = config(&["candidates", "--cwd", "/w/p/"]).unwrap();
    assert_eq!(exact.target.cwd.as_deref(), Some("/w/p/"));
}

#[test]
fn long_help_lists_keys_and_exit_codes_and_short_help_does_not() {
    let mut cmd = Cli::full_command();
    let long = cmd.render_long_help().to_string();
    assert!(long.contains("alt-s") && long.contains("130  cancelled"));
    assert!(long.contains("Global options (any command):"));
    let short = Cli::full_command().render_help().to_string();
    assert!(!short.contains("Exit codes"));
}

#[test]
fn completions_and_man() {
    let Command::Completions(bash) = config(&["completions", "bash"]).unwrap().command else {
        panic!("not completions")
    };
    assert!(bash.contains("session-ref") && bash.contains("--max-references"));
    let Command::Man(page) = config(&["man"]).unwrap().command else {
        panic!("not man")
    };
    assert!(page.starts_with(".ie") && page.contains("Exit codes"));
}

#[test]
fn man_produces_every_page_it_lists_with_the_command_options() {
    let Command::Man(main) = config(&["man"]).unwrap().command else {
        panic!("not man")
    };
    let Command::ManPages { pages, .. } = config(&["man", "--dir", "/m"]).unwrap().command else {
        panic!("not man --dir")
    };
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[0], "session-ref.1");
    // Every page the main page names (`session-ref-search(1)`) is
    // written, and no `help` page is named that would not be.
    let listed: Vec<String> = main
        .replace("\\-", "-")
        .split_whitespace()
        .filter_map(|w| w.strip_suffix("(1)"))
        .map(|w| {
            format!(
                "{}.1",
                w.trim_start_matches("\\fB").trim_start_matches("\\fR")
            )
        })
        .collect();
    assert!(!listed.is_empty(), "{main}");
    for page in &listed {
        assert!(
            names.contains(&page.as_str()),
            "{page} listed, not written: {names:?}"
        );
    }
    assert!(!names.contains(&"session-ref-help.1"));
    for name in [
        "session-ref-search.1",
        "session-ref-hook-install.1",
        "session-ref-uri-decode.1",
    ] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    // A command's page has its own options and the global ones.
    let Command::Man(search) = config(&["man", "search"]).unwrap().command else {
        panic!("not man search")
    };
    assert!(search.contains("session\\-ref\\-search"), "{search}");
    assert!(search.contains("\\-\\-regex") && search.contains("\\-\\-no\\-index"));
    assert!(search.contains("\\-\\-max\\-references"));
    let Command::Man(install) = config(&["man", "hook", "install"]).unwrap().command else {
        panic!("not man hook install")
    };
    assert!(install.contains("\\-\\-print"));
    assert_eq!(
        config(&["man", "nosuch"]).unwrap_err().code,
        ErrorCode::InvalidConfig
    );
}

#[test]
fn invalid_values_are_config_errors() {
    for args in [
        &["--max-references", "4", "candidates"][..],
        &["--candidate-limit", "0", "candidates"],
        &["--max-reference-bytes", "-5", "candidates"],
    ] {
        assert_eq!(
            config(args).unwrap_err().code,
            ErrorCode::InvalidConfig,
            "{args:?}"
        );
    }
}

#[test]
fn bare_invocation_takes_the_picker_flags() {
    let c = config(&["--tmux-paste", "%3", "--query", "fix", "--store", "/s"]).unwrap();
    let Command::Pick(p) = c.command else {
        panic!("not pick")
    };
    assert_eq!(
        p.destination,
        Destination::TmuxPaste {
            pane: "%3".into(),
            force: false
        }
    );

    assert_eq!(p.query, "fix");
    assert_eq!(
        c.roots
            .iter()
            .map(|(k, p)| (k.as_str(), p.as_path()))
            .collect::<Vec<_>>(),
        [("hydra", std::path::Path::new("/s"))]
    );
    let forced = config(&["--tmux-paste", "{last}", "--tmux-paste-force"]).unwrap();
    let Command::Pick(forced) = forced.command else {
        panic!("not pick")
    };
    assert_eq!(
        forced.destination,
        Destination::TmuxPaste {
            pane: "{last}".into(),
            force: true
        }
    );
    let alone = Cli::try_parse_from(["session-ref", "--tmux-paste-force"]);
    assert!(alone.is_err(), "--tmux-paste-force needs --tmux-paste");
    let misplaced = Cli::try_parse_from(["session-ref", "--query", "x", "candidates"]);
    let usage = Cli::check(misplaced.unwrap()).unwrap_err();
    assert_eq!(usage.exit_code(), 2);
}

#[test]
fn a_limit_out_of_range_is_an_invalid_reference_as_in_the_reference() {
    for limit in ["0", "9007199254740992"] {
        assert_eq!(
            config(&["candidates", "--limit", limit]).unwrap_err().code,
            ErrorCode::InvalidReference,
            "{limit}"
        );
    }
    let c = config(&["candidates", "--limit", "7"]).unwrap();
    assert!(matches!(c.command, Command::Candidates { limit: 7, .. }));
}

#[test]
fn a_limit_that_is_not_a_number_is_a_usage_error() {
    for command in ["candidates", "search"] {
        for limit in ["x", "-1", "1.5", ""] {
            let args = ["session-ref", command, "q", "--limit", limit];
            let error = Cli::parse_from(args).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{command} --limit {limit:?}");
            assert!(error.to_string().contains("--limit <N>"), "{error}");
        }
    }
}

#[test]
fn the_usage_line_after_a_bad_flag_is_the_commands() {
    let usage = |args: &[&str]| {
        let error = Cli::parse_from(std::iter::once("session-ref").chain(args.iter().copied()))
            .unwrap_err();
        assert_eq!(error.exit_code(), 2);
        let text = error.to_string();
        text.lines()
            .find(|l| l.starts_with("Usage:"))
            .unwrap_or_else(|| panic!("no usage line in {text}"))
            .to_owned()
    };
    assert_eq!(
        usage(&["--store", "x", "--bogus"]),
        "Usage: session-ref [OPTIONS] [COMMAND]"
    );
    assert_eq!(
        usage(&[
            "--store",
            "x",
            "--store",
            "y",
            "--max-references",
            "2",
            "--nope"
        ]),
        "Usage: session-ref [OPTIONS] [COMMAND]"
    );
    assert_eq!(
        usage(&["candidates", "--store", "x", "--bogus"]),
        "Usage: session-ref candidates [OPTIONS] [QUERY]"
    );
    assert_eq!(
        usage(&["hook", "install", "--store", "x", "--bogus"]),
        "Usage: session-ref hook install [OPTIONS] <AGENT>"
    );
    assert_eq!(
        usage(&["search", "--limit", "3", "--bogus", "q"]),
        "Usage: session-ref search [OPTIONS] <QUERY>"
    );
}

#[test]
fn tmux_takes_an_optional_spec() {
    let popup = |args: &[&str]| match config(args).unwrap().command {
        Command::Pick(p) => p.popup.map(|(spec, _)| (spec.width, spec.height)),
        _ => panic!("not pick"),
    };
    assert_eq!(popup(&["--tmux"]), Some((90, 85)));
    assert_eq!(popup(&["--tmux", "center,50%"]), Some((50, 50)));
    assert_eq!(
        popup(&["--tmux=bottom,30%", "--query", "x"]),
        Some((100, 30))
    );
    assert_eq!(popup(&[]), None);
    assert_eq!(
        config(&["--tmux", "sideways"]).unwrap_err().code,
        ErrorCode::InvalidConfig
    );
}

#[test]
fn preview_window_is_validated_and_a_bad_one_is_a_usage_error() {
    let window = |args: &[&str]| match config(args).unwrap().command {
        Command::Pick(p) => p.preview_window,
        _ => panic!("not pick"),
    };
    assert_eq!(window(&[]), PreviewWindow::default());
    let right = window(&["--preview-window", "right:60%"]);
    assert_eq!(right, PreviewWindow::parse("right,60%").unwrap());
    assert!(window(&["--preview-window=hidden"]).hidden);
    // The words completion offers are each a valid value.
    for word in PreviewWindow::WORDS {
        window(&["--preview-window", word]);
    }
    for bad in ["up", "right:0%", "sideways"] {
        let error = Cli::try_parse_from(["session-ref", "--preview-window", bad]).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{bad}");
        let said = error.to_string();
        assert!(
            said.contains("SESSION_REFERENCE_INVALID_CONFIG: --preview-window: "),
            "{said}"
        );
    }
    // A picker option: not with another command.
    let other = Cli::parse_from(["session-ref", "--preview-window", "down", "candidates"]);
    assert_eq!(other.unwrap_err().exit_code(), 2);
}

#[test]
fn pick_destinations() {
    let c = config(&["pick", "--exec", "cat", "--format", "mention"]).unwrap();
    let Command::Pick(p) = c.command else {
        panic!("not pick")
    };
    assert_eq!(p.destination, Destination::Exec("cat".into()));
    assert_eq!(p.format, PickFormat::Mention);
}

//! The prompt, driven by actions alone: mentions inserted within the
//! limit, submits checked and waiting for discovery, the editor, the focus,
//! saved drafts restored.

use super::*;
use crate::error::{Error, ErrorCode};
use crate::tui::model::fixtures::*;
use crate::tui::model::*;
use crate::tui::testkit::{self, step};
use session_ref_core::mention::format_mention;

#[test]
fn enter_inserts_the_canonical_mention_and_the_limit_is_enforced() {
    let mut setup = testkit::setup();
    setup.limits.max_references = 2;
    setup.prompt = "compare".into();
    let mut state = ready(setup);
    step(&mut state, Action::InsertMention);
    let first = format_mention("new-here", Some("Fix lexer bug"));
    assert_eq!(state.prompt().text(), format!("compare {first} "));
    // The same session again does not count twice.
    step(&mut state, Action::InsertMention);
    step(&mut state, Action::Move(1));
    step(&mut state, Action::InsertMention);
    assert_eq!(state.prompt().referenced_ids(), ["new-here", "old-here"]);
    let before = state.prompt().text().to_owned();
    step(&mut state, Action::Move(1));
    step(&mut state, Action::InsertMention);
    assert_eq!(state.prompt().text(), before);
    let (error, text) = flash_text(&state).unwrap();
    assert!(error && text.contains("at most 2 sessions"), "{text}");
    // The message goes with the next key.
    step(&mut state, Action::Move(-1));
    assert_eq!(state.flash, None);
}

#[test]
fn submit_waits_for_discovery_and_a_failure_keeps_the_prompt() {
    let mut state = State::new(testkit::setup());
    let effects = step(&mut state, Action::Discovered(events(&sample())));
    titled(&mut state, effects, TITLES);
    step(&mut state, Action::InsertMention);
    let text = state.prompt().text().to_owned();
    // The space inserted after the final mention is not submitted.
    let submitted = text.strip_suffix(' ').unwrap().to_owned();
    assert!(step(&mut state, Action::Submit).is_empty());
    assert_eq!(state.submit, Submit::Waiting);
    // Keys are ignored while waiting, except abort.
    assert!(type_text(&mut state, "x").is_empty());
    assert_eq!(state.prompt().text(), text);
    let done = step(&mut state, Action::DiscoveryDone);
    assert_eq!(
        done,
        [Effect::Prepare {
            text: submitted,
            format: PickFormat::Text
        }]
    );
    assert_eq!(state.submit, Submit::Preparing);
    let failure = Error::new(ErrorCode::BudgetExceeded, "too big");
    assert!(step(&mut state, Action::Prepared(Err(failure))).is_empty());
    assert_eq!(state.submit, Submit::Idle);
    assert_eq!(state.prompt().text(), text);
    assert_eq!(
        flash_text(&state),
        Some((true, "SESSION_REFERENCE_BUDGET_EXCEEDED: too big"))
    );
    assert_eq!(step(&mut state, Action::Submit).len(), 1);
    let out = step(&mut state, Action::Prepared(Ok("prepared\n".into())));
    assert_eq!(out, [Effect::Exit(Exit::Submit("prepared\n".into()))]);
}

#[test]
fn submit_refuses_what_prepare_would_reject() {
    let mut setup = testkit::setup();
    setup.target.session_id = Some("self".into());
    let mut state = ready(setup);
    let four = ["a", "b", "c", "d"]
        .map(|id| format_mention(id, None))
        .join(" ");
    let own = format_mention("self", None);
    let cases = [
        ("", None),
        ("  \n ", None),
        (
            "see hydra-session:ImFiYyJ",
            Some(ErrorCode::InvalidReference),
        ),
        (four.as_str(), Some(ErrorCode::TooMany)),
        (own.as_str(), Some(ErrorCode::SelfReference)),
    ];
    for (text, code) in cases {
        step(&mut state, Action::EditorDone(Ok(text.to_owned())));
        assert!(step(&mut state, Action::Submit).is_empty(), "{text}");
        let (error, message) = flash_text(&state).unwrap();
        assert!(error, "{text}");
        match code {
            Some(code) => assert!(message.starts_with(code.as_str()), "{message}"),
            None => assert!(message.starts_with("nothing to submit"), "{message}"),
        }
        assert_eq!(state.prompt().text(), text);
        assert_eq!(state.submit, Submit::Idle);
    }
}

#[test]
fn mention_format_submits_the_buffer_at_once() {
    let mut setup = testkit::setup();
    setup.format = PickFormat::Mention;
    let mut state = State::new(setup);
    step(&mut state, Action::Discovered(events(&sample())));
    step(&mut state, Action::InsertMention);
    let text = state.prompt().submitted().to_owned();
    assert!(!text.ends_with(' '));
    let out = step(&mut state, Action::Submit);
    assert_eq!(out, [Effect::Exit(Exit::Submit(format!("{text}\n")))]);
}

#[test]
fn abort_works_even_while_preparing() {
    let mut state = ready(testkit::setup());
    assert_eq!(step(&mut state, Action::Abort), [Effect::Exit(Exit::Abort)]);
    state.prompt = crate::tui::prompt::Prompt::new("hello");
    step(&mut state, Action::Submit);
    assert_eq!(state.submit, Submit::Preparing);
    assert!(step(&mut state, Action::Move(1)).is_empty());
    assert_eq!(step(&mut state, Action::Abort), [Effect::Exit(Exit::Abort)]);
}

#[test]
fn the_editor_is_an_effect_and_its_text_replaces_the_prompt() {
    let mut setup = testkit::setup();
    setup.prompt = "draft".into();
    let mut state = ready(setup);
    assert_eq!(
        step(&mut state, Action::OpenEditor),
        [Effect::OpenEditor("draft".into())]
    );
    step(&mut state, Action::EditorDone(Ok("final\ntext".into())));
    assert_eq!(state.prompt().text(), "final\ntext");
    assert_eq!(state.focus, Focus::Prompt);
    step(
        &mut state,
        Action::EditorDone(Err("vi exited with 1".into())),
    );
    assert_eq!(state.prompt().text(), "final\ntext");
    assert_eq!(
        flash_text(&state),
        Some((true, "$EDITOR: vi exited with 1"))
    );
}

#[test]
fn focus_decides_where_typing_and_pastes_go() {
    let mut state = ready(testkit::setup());
    type_text(&mut state, "fix");
    step(&mut state, Action::ToggleFocus);
    type_text(&mut state, "hi");
    step(&mut state, Action::Edit(Edit::Newline));
    step(&mut state, Action::Paste("a\r\nb".into()));
    assert_eq!(state.query(), "fix");
    assert_eq!(state.prompt().text(), "hi\na\nb");
    step(&mut state, Action::ToggleFocus);
    step(&mut state, Action::Paste(" x\ny".into()));
    assert_eq!(state.query(), "fix x y");
}

#[test]
fn a_saved_draft_is_offered_and_restored_on_request() {
    let mut setup = testkit::setup();
    setup.drafts = vec![crate::draft::Draft {
        path: "/state/session-ref/draft-1-2.md".into(),
        text: "the lost words".into(),
    }];
    let mut state = State::new(setup);
    assert_eq!(
        flash_text(&state),
        Some((
            false,
            "a prompt you did not send was saved: alt-r restores it"
        ))
    );
    assert_eq!(state.prompt_text(), "");
    step(&mut state, Action::RestoreDraft);
    assert_eq!(state.prompt_text(), "the lost words");
    assert_eq!(state.focus, Focus::Prompt);
    assert_eq!(
        state.restored_draft(),
        Some(std::path::Path::new("/state/session-ref/draft-1-2.md"))
    );
    // Nothing was typed: nothing to set aside, and the one draft stays.
    assert_eq!(state.set_aside(), None);
    step(&mut state, Action::RestoreDraft);
    assert_eq!(state.prompt_text(), "the lost words");
    let mut empty = State::new(testkit::setup());
    step(&mut empty, Action::RestoreDraft);
    assert_eq!(
        flash_text(&empty),
        Some((false, "no saved prompt to restore"))
    );
}

#[test]
fn restoring_steps_through_older_drafts_and_keeps_what_it_replaces() {
    let mut setup = testkit::setup();
    let draft = |n: u32, text: &str| crate::draft::Draft {
        path: format!("/state/session-ref/draft-{n}.md").into(),
        text: text.into(),
    };
    setup.drafts = vec![draft(3, "newest"), draft(2, "middle"), draft(1, "oldest")];
    let mut state = State::new(setup);
    assert_eq!(
        flash_text(&state),
        Some((
            false,
            "3 prompts you did not send were saved: alt-r restores them, newest first"
        ))
    );
    step(&mut state, Action::ToggleFocus);
    for c in "typed now".chars() {
        step(&mut state, Action::Edit(Edit::Insert(c)));
    }
    let shown: Vec<(String, Option<String>)> = (0..5)
        .map(|_| {
            step(&mut state, Action::RestoreDraft);
            (
                state.prompt_text().to_owned(),
                state.set_aside().map(str::to_owned),
            )
        })
        .collect();
    let aside = Some("typed now".to_owned());
    assert_eq!(
        shown,
        [
            ("newest".into(), aside.clone()),
            ("middle".into(), aside.clone()),
            ("oldest".into(), aside.clone()),
            ("typed now".into(), None),
            ("newest".into(), aside.clone()),
        ]
    );
    assert_eq!(
        state.restored_draft(),
        Some(std::path::Path::new("/state/session-ref/draft-3.md"))
    );
    // Edited after restoring: the edit is what was typed from then on.
    step(&mut state, Action::Edit(Edit::Insert('!')));
    step(&mut state, Action::RestoreDraft);
    assert_eq!(state.prompt_text(), "newest");
    assert_eq!(state.set_aside(), Some("newest!"));
    for _ in 0..3 {
        step(&mut state, Action::RestoreDraft);
    }
    assert_eq!(state.prompt_text(), "newest!");
    assert_eq!(state.restored_draft(), None);
}

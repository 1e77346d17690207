//! Resume and hand-off in the state machine: which effect each key asks
//! for, the chooser's moves, and what a plan or its failure does.

use super::*;
use crate::launch::{Launch, Plan};
use crate::tui::model::fixtures::*;
use crate::tui::testkit::{self, step};

fn plan() -> Plan {
    Plan {
        program: "/bin/agent".into(),
        args: vec!["--resume=x".into()],
        cwd: "/".into(),
    }
}

#[test]
fn resume_plans_the_highlighted_session_and_a_plan_ends_the_picker() {
    let mut state = ready(testkit::setup());
    let highlighted = state.current().unwrap().record.clone();
    let fx = step(&mut state, Action::Resume);
    assert_eq!(
        fx,
        [Effect::PlanLaunch {
            record: highlighted,
            launch: Launch::Resume
        }]
    );
    // Keys wait while the plan is made.
    assert!(step(&mut state, Action::Resume).is_empty());
    let fx = step(&mut state, Action::Planned(Ok(plan())));
    assert_eq!(fx, [Effect::Exit(Exit::Launch(plan()))]);
}

#[test]
fn a_failed_plan_is_shown_and_the_picker_goes_on() {
    let mut state = ready(testkit::setup());
    step(&mut state, Action::Resume);
    let failed = crate::error::Error::agent_missing("Codex is not installed: no `codex` on PATH");
    assert!(step(&mut state, Action::Planned(Err(failed))).is_empty());
    let (error, text) = flash_text(&state).unwrap();
    assert!(
        error && text.starts_with("SESSION_REFERENCE_AGENT_MISSING: Codex"),
        "{text}"
    );
    assert!(!step(&mut state, Action::Resume).is_empty());
}

#[test]
fn the_chooser_hands_off_to_the_chosen_agent_with_the_typed_prompt() {
    let mut state = ready(testkit::setup());
    let highlighted = state.current().unwrap().record.clone();
    step(&mut state, Action::Handoff);
    assert!(state.key_context().chooser);
    step(&mut state, Action::ChooserMove(-1));
    let agents = Chooser::agents();
    assert_eq!(state.chooser.as_ref().unwrap().selected, agents.len() - 1);
    step(&mut state, Action::ChooserMove(2));
    assert_eq!(state.chooser.as_ref().unwrap().selected, 1);
    step(&mut state, Action::CloseChooser);
    assert!(state.chooser.is_none());

    step(&mut state, Action::ToggleFocus);
    type_text(&mut state, "  take over  ");
    step(&mut state, Action::Handoff);
    step(&mut state, Action::ChooserMove(1));
    let fx = step(&mut state, Action::Choose);
    assert_eq!(
        fx,
        [Effect::PlanLaunch {
            record: highlighted,
            launch: Launch::Handoff {
                to: agents[1].kind,
                prompt: Some("take over".to_owned()),
            }
        }]
    );
    assert!(state.chooser.is_none());
}

#[test]
fn with_no_session_there_is_nothing_to_resume_or_hand_off() {
    let mut state = State::new(testkit::setup());
    step(&mut state, Action::DiscoveryDone);
    assert!(step(&mut state, Action::Resume).is_empty());
    assert_eq!(flash_text(&state), Some((true, "no session to resume")));
    step(&mut state, Action::Handoff);
    assert!(state.chooser.is_none());
    assert_eq!(flash_text(&state), Some((true, "no session to hand off")));
}

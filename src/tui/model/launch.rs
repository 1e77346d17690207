//! Resume and hand-off from the picker: `alt-o` asks for the command that
//! resumes the highlighted session, `alt-h` opens a small chooser of the
//! agents a session can be handed to, and the driver plans the chosen
//! command off the UI thread ([`Effect::PlanLaunch`]: every check made,
//! the hand-off's prompt prepared). A plan ends the picker
//! ([`Exit::Launch`]) so that the terminal is restored before the agent
//! starts; a failure is shown in the footer and the picker goes on.

use super::{Chooser, Effect, Exit, State, Submit};
use crate::error::Error;
use crate::launch::{Launch, Plan};
use session_ref_stores::model::SessionRecord;

impl State {
    /// The highlighted session's record, or a footer error saying why
    /// there is none to `what`.
    fn launch_record(&mut self, what: &str) -> Option<SessionRecord> {
        match self.current() {
            Some(entry) => Some(entry.record.clone()),
            None => {
                self.error(format!("no session to {what}"));
                None
            }
        }
    }

    /// `alt-o`: plan resuming the highlighted session.
    pub(super) fn resume(&mut self, fx: &mut Vec<Effect>) {
        if let Some(record) = self.launch_record("resume") {
            self.plan(record, Launch::Resume, fx);
        }
    }

    /// `alt-h`: open the chooser on the highlighted session.
    pub(super) fn open_chooser(&mut self) {
        if let Some(record) = self.launch_record("hand off") {
            self.chooser = Some(Chooser {
                record,
                selected: 0,
            });
        }
    }

    /// Move the chooser's highlight, wrapping around.
    pub(super) fn chooser_move(&mut self, by: isize) {
        if let Some(chooser) = self.chooser.as_mut() {
            let count = Chooser::agents().len().max(1) as isize;
            chooser.selected = (chooser.selected as isize + by).rem_euclid(count) as usize;
        }
    }

    /// Enter in the chooser: plan the hand-off to the highlighted agent,
    /// the prompt's text (when any) asked before the citation.
    pub(super) fn choose(&mut self, fx: &mut Vec<Effect>) {
        let Some(chooser) = self.chooser.take() else {
            return;
        };
        let Some(to) = Chooser::agents().get(chooser.selected).map(|l| l.kind) else {
            return;
        };
        let typed = self.prompt.submitted().trim();
        let prompt = (!typed.is_empty()).then(|| typed.to_owned());
        self.plan(chooser.record, Launch::Handoff { to, prompt }, fx);
    }

    fn plan(&mut self, record: SessionRecord, launch: Launch, fx: &mut Vec<Effect>) {
        self.submit = Submit::Preparing;
        fx.push(Effect::PlanLaunch { record, launch });
    }

    /// The planned command ends the picker; a failure is shown.
    pub(super) fn planned(&mut self, result: Result<Plan, Error>, fx: &mut Vec<Effect>) {
        self.submit = Submit::Idle;
        match result {
            Ok(plan) => fx.push(Effect::Exit(Exit::Launch(plan))),
            Err(e) => self.error(format!("{}: {}", e.code, e.message_for_person())),
        }
    }
}

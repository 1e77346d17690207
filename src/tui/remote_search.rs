//! Conversation search on other machines (`--remote`) for the picker's
//! search mode: which query each remote is asked, and when. Pure, no I/O:
//! the state asks it what to send ([`Effect::SearchRemote`] carries a
//! [`RemoteAsk`]) and hands it each answer; the driver does the asking on a
//! thread of its own per request.
//!
//! Why a scheduler of its own: a remote's `session-ref remote serve`
//! answers the requests of the run's one connection one at a time, in
//! order. A search per keystroke would queue there, each behind the one
//! before, and the query the user stopped at would be answered last. So at
//! most one search is in flight per host; keys typed meanwhile only change
//! the query wanted next, and when the answer comes the host is asked the
//! latest query (those typed in between never reach the wire). The last
//! answer of each host is kept, so a re-search of the same query (once
//! discovery has grown the list, or after toggling the mode) costs no
//! request.
//!
//! [`Effect::SearchRemote`]: crate::tui::model::Effect::SearchRemote

/// What one host answered a search: its matching sessions (records named
/// `ID@HOST`), or why it could not search (its host named first).
pub use crate::search::pipeline::RemoteAnswer;

/// A search to send to one host now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteAsk {
    /// The host, as configured (`--remote`, `[[remote]]`).
    pub host: String,
    /// The picker query (words, "phrases", or `re:` and a regex).
    pub query: String,
}

/// Where the search of one host stands.
#[derive(Debug)]
struct HostSearch {
    host: String,
    /// The query sent and not answered yet.
    asking: Option<String>,
    /// The query the picker wants answered (`None`: not searching).
    wanted: Option<String>,
    /// The latest answer, with the query it answers.
    answered: Option<(String, RemoteAnswer)>,
}

impl HostSearch {
    /// The ask that brings this host's answer up to the wanted query, when
    /// it is idle and its latest answer is of another query.
    fn next(&mut self) -> Option<RemoteAsk> {
        let wanted = self.wanted.as_ref()?;
        if self.asking.is_some() || self.answered.as_ref().is_some_and(|(q, _)| q == wanted) {
            return None;
        }
        self.asking = Some(wanted.clone());
        Some(RemoteAsk {
            host: self.host.clone(),
            query: wanted.clone(),
        })
    }
}

/// The remote side of the picker's conversation search: one entry per
/// configured host, kept across searches and mode toggles (a request in
/// flight is answered whatever the picker does meanwhile).
#[derive(Debug, Default)]
pub struct RemoteSearches {
    hosts: Vec<HostSearch>,
}

/// What the status line says of the remotes for the wanted query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteStatus {
    /// Hosts whose answer to the wanted query has not come yet.
    pub asking: Vec<String>,
    /// Hosts that could not answer it, with why.
    pub failed: Vec<(String, String)>,
}

impl RemoteSearches {
    /// Searches of these hosts (none asked yet).
    pub fn new(hosts: impl IntoIterator<Item = String>) -> Self {
        RemoteSearches {
            hosts: hosts
                .into_iter()
                .map(|host| HostSearch {
                    host,
                    asking: None,
                    wanted: None,
                    answered: None,
                })
                .collect(),
        }
    }

    /// Whether any remote is configured.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }

    /// Want `query` answered by every host (`None`: stop wanting answers):
    /// the hosts to ask now. A host busy with an older query is asked when
    /// it answers ([`RemoteSearches::answered`]); one whose latest answer
    /// is of `query` is not asked again ([`RemoteSearches::answers`] has it).
    pub fn want(&mut self, query: Option<&str>) -> Vec<RemoteAsk> {
        self.hosts
            .iter_mut()
            .filter_map(|host| {
                host.wanted = query.map(str::to_owned);
                host.next()
            })
            .collect()
    }

    /// `host` answered `query`: keep the answer and free the host; the
    /// host's next ask, when the picker wants another query by now.
    pub fn answered(&mut self, host: &str, query: &str, answer: RemoteAnswer) -> Option<RemoteAsk> {
        let entry = self.hosts.iter_mut().find(|h| h.host == host)?;
        if entry.asking.as_deref() == Some(query) {
            entry.asking = None;
        }
        entry.answered = Some((query.to_owned(), answer));
        entry.next()
    }

    /// The answers known for `query`, host by host in configuration order.
    pub fn answers<'a>(
        &'a self,
        query: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a RemoteAnswer)> {
        self.hosts.iter().filter_map(move |h| match &h.answered {
            Some((q, answer)) if q == query => Some((h.host.as_str(), answer)),
            _ => None,
        })
    }

    /// The answer `host` gave to `query`, when it is the host's latest.
    pub fn answer(&self, host: &str, query: &str) -> Option<&RemoteAnswer> {
        match &self.hosts.iter().find(|h| h.host == host)?.answered {
            Some((q, answer)) if q == query => Some(answer),
            _ => None,
        }
    }

    /// Which hosts are still to answer the wanted query and which could
    /// not.
    pub fn status(&self) -> RemoteStatus {
        let mut status = RemoteStatus::default();
        for host in &self.hosts {
            let Some(wanted) = &host.wanted else {
                continue;
            };
            match &host.answered {
                Some((q, Err(why))) if q == wanted => {
                    status.failed.push((host.host.clone(), why.clone()));
                }
                Some((q, Ok(_))) if q == wanted => {}
                _ => status.asking.push(host.host.clone()),
            }
        }
        status
    }

    /// Requests sent and not answered yet, over all hosts (at most one per
    /// host).
    pub fn in_flight(&self) -> usize {
        self.hosts.iter().filter(|h| h.asking.is_some()).count()
    }
}

impl RemoteStatus {
    /// Nothing to say: every host answered the wanted query (or none is
    /// wanted).
    pub fn is_empty(&self) -> bool {
        self.asking.is_empty() && self.failed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(host: &str, query: &str) -> RemoteAsk {
        RemoteAsk {
            host: host.to_owned(),
            query: query.to_owned(),
        }
    }

    #[test]
    fn one_search_in_flight_per_host_and_the_latest_query_next() {
        let mut remotes = RemoteSearches::new(["a".to_owned(), "b".to_owned()]);
        assert_eq!(remotes.want(Some("s")), [ask("a", "s"), ask("b", "s")]);
        // Typing on while both are busy sends nothing.
        for query in ["sn", "sna", "snap"] {
            assert!(remotes.want(Some(query)).is_empty());
        }
        assert_eq!(remotes.in_flight(), 2);
        // An answer to a superseded query is kept, and the host is asked
        // the latest query, skipping those typed in between.
        assert_eq!(
            remotes.answered("a", "s", Ok(Vec::new())),
            Some(ask("a", "snap"))
        );
        assert!(remotes.answers("snap").next().is_none());
        assert_eq!(
            remotes.status().asking,
            ["a".to_owned(), "b".to_owned()],
            "neither has answered what is wanted"
        );
        assert_eq!(remotes.answered("a", "snap", Ok(Vec::new())), None);
        assert_eq!(remotes.status().asking, ["b".to_owned()]);
        // Back to a query a host answered last: nothing to ask.
        assert!(remotes.want(Some("snap")).is_empty());
        assert!(remotes.answer("a", "snap").is_some());
    }

    #[test]
    fn a_failure_is_the_hosts_status_until_another_query_is_wanted() {
        let mut remotes = RemoteSearches::new(["a".to_owned()]);
        remotes.want(Some("x"));
        assert_eq!(
            remotes.answered("a", "x", Err("a: unreachable after 3 s".to_owned())),
            None
        );
        let status = remotes.status();
        assert!(status.asking.is_empty());
        assert_eq!(
            status.failed,
            [("a".to_owned(), "a: unreachable after 3 s".to_owned())]
        );
        assert_eq!(remotes.want(Some("y")), [ask("a", "y")]);
        assert!(remotes.status().failed.is_empty());
    }

    #[test]
    fn leaving_search_mode_asks_nothing_more_but_keeps_the_answer() {
        let mut remotes = RemoteSearches::new(["a".to_owned()]);
        remotes.want(Some("x"));
        assert!(remotes.want(None).is_empty());
        assert!(remotes.status().is_empty());
        assert_eq!(remotes.answered("a", "x", Ok(Vec::new())), None);
        assert!(remotes.want(Some("x")).is_empty(), "its answer is kept");
        assert!(remotes.answer("a", "x").is_some());
        // An answer from a host no longer configured is ignored.
        assert_eq!(remotes.answered("z", "x", Ok(Vec::new())), None);
    }
}

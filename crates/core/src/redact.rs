//! Redaction of likely secrets in session text: the opt-in `--redact` of
//! `export`, `preview` and `prepare` (issue 28). Never the default: a
//! snapshot stays byte-exact to the reference unless the user asks.
//!
//! Patterns are the credential shapes of the common providers, each a
//! distinctive prefix plus the token alphabet and length the provider
//! documents (AWS, GitHub, GitLab, OpenAI, Anthropic, Slack, Google,
//! Stripe, npm, Hugging Face), PEM private key blocks, JSON Web Tokens and
//! `password=`/`secret:`-style assignments. The token and assignment
//! patterns match no backslash or quote, and a key block runs from its
//! BEGIN line to its END line: redacting the JSON text of a snapshot
//! replaces whole runs inside its strings and never cuts an escape. A prefix is required for the
//! token shapes so that ordinary hashes and ids are not redacted; what is
//! matched is replaced by `[REDACTED:<kind>]` and counted.
//!
//! Uses the `regex` crate: matching is linear in the text whatever it
//! holds, so a hostile transcript cannot make redaction slow.

use std::borrow::Cow;

use regex::Regex;

/// What replaces a secret of `kind`.
fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// One kind of secret and how it is found.
#[derive(Debug)]
struct Rule {
    /// Short name shown in the marker (`aws-key`, `private-key`, …).
    kind: &'static str,
    /// The pattern; when it has a group named `secret`, only that group
    /// is replaced (the `password=` in `password=hunter2` stays).
    pattern: Regex,
}

/// The compiled secret patterns; build one per run and share it.
#[derive(Debug)]
pub struct Redactor {
    rules: Vec<Rule>,
}

/// How much one call redacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Redactions {
    /// Secrets replaced.
    pub count: usize,
}

impl std::ops::AddAssign for Redactions {
    fn add_assign(&mut self, other: Redactions) {
        self.count += other.count;
    }
}

/// The rules, most specific first: an Anthropic key (`sk-ant-…`) is
/// named as such before the generic `sk-` rule could take it.
const RULES: &[(&str, &str)] = &[
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    ("aws-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    (
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
    ),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    (
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    ),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    (
        "stripe-key",
        r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b",
    ),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    ),
    (
        "password",
        r#"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?(?P<secret>[^\s"',;\\]{4,})"#,
    ),
];

impl Redactor {
    /// The compiled rules.
    pub fn new() -> Redactor {
        let rules = RULES
            .iter()
            .map(|(kind, pattern)| Rule {
                kind,
                // The patterns are constants tested below: compiling one
                // cannot fail at run time.
                pattern: Regex::new(pattern).expect("a redaction pattern compiles"),
            })
            .collect();
        Redactor { rules }
    }

    /// `text` with each likely secret replaced by a marker, and how many
    /// were replaced; borrowed when nothing was.
    pub fn redact<'a>(&self, text: &'a str) -> (Cow<'a, str>, Redactions) {
        let mut current: Cow<'a, str> = Cow::Borrowed(text);
        let mut done = Redactions::default();
        for rule in &self.rules {
            if !rule.pattern.is_match(&current) {
                continue;
            }
            let mut out = String::with_capacity(current.len());
            let mut last = 0;
            for caps in rule.pattern.captures_iter(&current) {
                let whole = caps.get(0).expect("group 0 is the match");
                let secret = caps.name("secret").unwrap_or(whole);
                // A marker from an earlier rule is never redacted again.
                if current[secret.start()..].starts_with("[REDACTED:") {
                    continue;
                }
                out.push_str(&current[last..secret.start()]);
                out.push_str(&marker(rule.kind));
                last = secret.end();
                done.count += 1;
            }
            out.push_str(&current[last..]);
            current = Cow::Owned(out);
        }
        (current, done)
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> (String, usize) {
        let (out, n) = Redactor::new().redact(text);
        (out.into_owned(), n.count)
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(Redactor::new().rules.len(), RULES.len());
    }

    #[test]
    fn provider_tokens_are_replaced_and_counted() {
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "aws-key"),
            (
                "ghp_0123456789abcdefghijABCDEFGHIJ012345 pushed",
                "github-token",
            ),
            (
                "export ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuvwx",
                "anthropic-key",
            ),
            ("sk-proj-abcdefghijklmnopqrstuvwxyz0123", "openai-key"),
            ("xoxb-1234567890-abcdefghij", "slack-token"),
            ("AIzaSyA-0123456789abcdefghijklmnopqrstu", "google-api-key"),
            ("sk_live_0123456789abcdefABCD", "stripe-key"),
            ("glpat-abcdefghij0123456789", "gitlab-token"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
        ];
        for (text, kind) in cases {
            let (out, n) = redact(text);
            assert_eq!(n, 1, "{text} -> {out}");
            assert!(
                out.contains(&format!("[REDACTED:{kind}]")),
                "{text} -> {out}"
            );
        }
    }

    #[test]
    fn an_anthropic_key_is_named_once_not_again_as_openai() {
        let (out, n) = redact("sk-ant-api03-abcdefghijklmnopqrstuvwx");
        assert_eq!((out.as_str(), n), ("[REDACTED:anthropic-key]", 1));
    }

    #[test]
    fn a_password_assignment_keeps_its_name() {
        let (out, n) = redact("db: password=hunter2!x and PASSWORD: \"s3cr3t-v\"");
        assert_eq!(n, 2);
        assert_eq!(
            out,
            "db: password=[REDACTED:password] and PASSWORD: \"[REDACTED:password]\""
        );
    }

    #[test]
    fn redacting_json_text_keeps_it_json() {
        let value = serde_json::json!({"text": "password=\"hunter2x\" and sk-ant-api03-abcdefghijklmnopqrstuvwx\\n done"});
        let text = serde_json::to_string(&value).unwrap();
        let (out, n) = Redactor::new().redact(&text);
        assert_eq!(n.count, 2, "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
        assert!(back["text"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:anthropic-key]"));
    }

    #[test]
    fn a_private_key_block_goes_whole() {
        let text = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter";
        let (out, n) = redact(text);
        assert_eq!(n, 1);
        assert_eq!(out, "before\n[REDACTED:private-key]\nafter");
    }

    #[test]
    fn ordinary_text_hashes_and_ids_are_left_alone() {
        for text in [
            "commit 3f9c2a1b7e4d5c6f8a9b0c1d2e3f4a5b6c7d8e9f",
            "session 019b8000-0000-7000-8000-000000000002",
            "the skeleton key of the design",
            "ask-anything about passwords in general",
            "",
        ] {
            let (out, n) = redact(text);
            assert_eq!((out.as_str(), n), (text, 0));
            assert!(matches!(Redactor::new().redact(text).0, Cow::Borrowed(_)));
        }
    }
}

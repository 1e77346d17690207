//! The integration tests, as one test binary: one module per area, all
//! linked once against the library and run by one harness.
//!
//! One binary rather than one per file: each `tests/*.rs` file was its own
//! crate, linked against every dependency again (21 links of a debug build
//! that dominate `cargo test` after a change), with its own copy of the
//! shared helpers. Here the helpers are one module ([`support`]) and
//! dead-code analysis sees the whole suite at once.
//!
//! Every module drives the built binary (`CARGO_BIN_EXE_session-ref`) or
//! the library crates; none needs a process of its own: no test sets an
//! environment variable, changes directory or installs a global of the
//! harness's process (each child gets its environment from
//! [`support::command`] or [`support::hermetic::isolate`]). One test
//! binary stays apart: `tests/hostile.rs` measures the peak memory of the
//! children it spawns, which counts the spawner's own (its header says
//! why), so its harness must stay small.
//!
//! Run one area with its module path as the filter:
//! `cargo test --test it mcp::`, `CI=1 cargo test --test it picker_e2e::`.
//! Fixtures stay under `tests/fixtures` (and the reference's scripts under
//! `tests/oracle`), found from `CARGO_MANIFEST_DIR`.

mod support;

mod aider_store;
mod architecture;
mod cli;
mod completions;
mod consistency;
mod copilot_store;
mod delivery;
mod doctor;
mod export;
mod fidelity;
mod foreign_stores;
mod gemini_store;
mod goose_store;
mod hook;
mod hook_agents;
mod json_fields;
mod keep;
mod kilo_droid_crush;
mod launch;
mod mcp;
mod opencode_store;
mod oracle;
mod parser_props;
mod picker_e2e;
mod readme_keys;
mod remote;
mod search;
mod search_append;
mod setup;
mod setup_agents;
mod store_suite;
mod title_index;

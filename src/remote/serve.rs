//! `session-ref remote serve`: the server end of the exchange, reading
//! request lines on stdin and writing answer lines on stdout until stdin
//! ends. What each request is answered with, and the protocol, are the
//! engine's ([`session_ref_engine::serve`]); this module only moves lines.

use std::io::Write;

use crate::config::{Command, Config};
use crate::error::{Error, Result};
use session_ref_engine::serve::{hello_line, refusal_line, Service, MAX_REQUEST};
use session_ref_stores::remote::read_bounded_line;
use session_ref_stores::Catalog;

/// `session-ref remote serve`: answer one client's requests on stdin with
/// lines on stdout until stdin ends. The catalog is listed with
/// `load_catalog` (the program's one way of listing a run's stores, given
/// by the caller) on the first request that needs it.
pub fn serve(config: &Config, load_catalog: impl FnOnce(&Config) -> Catalog) -> Result<()> {
    let index_dir = match &config.command {
        Command::RemoteServe { search_index } => search_index.clone(),
        _ => None,
    };
    let mut service = Service::new(|| load_catalog(config), index_dir, config.roots.clone());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut write = |line: &str| -> Result<()> {
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| Error::internal(format!("cannot answer: {e}")))
    };
    write(&hello_line())?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_bounded_line(&mut input, &mut line, MAX_REQUEST) {
            Ok(false) => break,
            Ok(true) => write(&service.answer_line(&line))?,
            Err(why) => {
                write(&refusal_line(&why))?;
                break;
            }
        }
    }
    service.finish();
    Ok(())
}

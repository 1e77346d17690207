//! What every request handler of the server shares: running a request's
//! work as a job on rayon's pool (the program's one concurrency model)
//! while the async runtime only waits for it or for its cancellation,
//! session-ref errors as JSON-RPC errors, results built as JSON, and the
//! client's name. A leaf: the server, the tools and nothing else of the
//! server's modules import it.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::Value;

use crate::error::{Error, ErrorCode};

/// The client's name: from `initialize`, or from the request's `_meta`
/// (2026-07-28).
pub fn client_name(context: &RequestContext<RoleServer>) -> String {
    context
        .client_info()
        .map(|info| info.name)
        .unwrap_or_default()
}

/// The JSON-RPC error of a cancelled request (rmcp drops it unsent).
fn cancelled_error() -> McpError {
    McpError::new(rmcp::model::ErrorCode(-32800), "request cancelled", None)
}

/// Run `work` on rayon's pool once one of `jobs` is free; its result, or
/// an error when `cancelled` resolves first (then `work`'s cancel flag is
/// set, so a search or a ranking stops, and a job not started yet does
/// nothing). The job holds its permit until it ends, even when its
/// request was cancelled.
pub async fn on_pool<T: Send + 'static>(
    jobs: &Arc<tokio::sync::Semaphore>,
    cancelled: impl Future<Output = ()>,
    work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
) -> Result<T, McpError> {
    tokio::pin!(cancelled);
    let permit = tokio::select! {
        permit = jobs.clone().acquire_owned() => permit
            .map_err(|_| protocol_error(&Error::internal("the server is shutting down")))?,
        () = &mut cancelled => return Err(cancelled_error()),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let flag = cancel.clone();
    rayon::spawn(move || {
        let _permit = permit;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&flag)));
        let _ = tx.send(result.map_err(|panic| Error::from_panic(&*panic)));
    });
    tokio::select! {
        result = rx => match result {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(protocol_error(&e)),
            Err(_) => Err(protocol_error(&Error::internal("the request's job ended without an answer"))),
        },
        () = cancelled => {
            cancel.store(true, Ordering::Relaxed);
            Err(cancelled_error())
        }
    }
}

/// Deserialize a result built as JSON, marked complete (the 2026-07-28
/// revision's `resultType`; rmcp drops it for older peers).
pub fn from_json<T: serde::de::DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    if let Some(object) = value.as_object_mut() {
        object.insert("resultType".into(), "complete".into());
    }
    serde_json::from_value(value).map_err(|e| protocol_error(&Error::internal(e.to_string())))
}

/// A session-ref error as a JSON-RPC error: unknown or unreadable sessions
/// are "resource not found", bad arguments "invalid params". Every error
/// the server answers (but a cancellation's fixed text) is made here, so
/// its text is the escaped `session-ref: CODE: message` line
/// ([`Error::stderr_line`]): the client parses the JSON back into raw
/// characters before it shows them.
pub fn protocol_error(error: &Error) -> McpError {
    let message = error.stderr_line();
    match error.code {
        ErrorCode::ReadFailed => McpError::resource_not_found(message, None),
        ErrorCode::Internal => McpError::internal_error(message, None),
        _ => McpError::invalid_params(message, None),
    }
}

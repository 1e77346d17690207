//! The one error every settings format gives for a file it cannot use, a
//! leaf so the formats and the editor above them share it without a circle.

use std::path::Path;

use crate::error::Error;

/// The error for a settings file that cannot be used as it is.
pub fn malformed(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::invalid_config(format!(
        "{} is not a valid settings file ({why}); it was left untouched",
        path.display()
    ))
}

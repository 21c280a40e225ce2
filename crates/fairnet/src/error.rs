//! The one error type of the core crate.
//!
//! Every variant names what is wrong and where (a field path, a flow id, a link id) so that the
//! CLI can print it as one line and Python can raise it as a `ValueError`.

use thiserror::Error;

/// An error about input: what was given does not describe a valid problem.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A value is out of range or malformed; `at` is the field path or item (`flows[3].weight`,
    /// `link 7`), `msg` what was expected and what was found.
    #[error("{at}: {msg}")]
    Invalid {
        /// Where the problem is.
        at: String,
        /// What is wrong.
        msg: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {msg}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's or parser's message.
        msg: String,
    },
}

impl Error {
    /// Shorthand for [`Error::Invalid`].
    pub fn invalid(at: impl Into<String>, msg: impl Into<String>) -> Error {
        Error::Invalid {
            at: at.into(),
            msg: msg.into(),
        }
    }
}

/// Result with the crate's [`Error`](enum@Error).
pub type Result<T> = std::result::Result<T, Error>;

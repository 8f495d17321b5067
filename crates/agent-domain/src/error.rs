//! The observable error-code convention shared by every error type of the runtime.

/// An error that carries one of the spec's stable `namespace.snake_case` codes.
///
/// Codes are the public contract (journals, tool results and CLI output key on them); the
/// human-readable message is free to change.
pub trait ErrorCode {
    /// The stable `namespace.code` string, e.g. `workspace.path_is_directory`.
    fn code(&self) -> &'static str;
}

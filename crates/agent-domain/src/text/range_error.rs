//! [`LineRangeError`]: a `start_line` / `line_count` pair that cannot be read.

/// Which tool family a line range belongs to. Every family reports a bad range under its own
/// error namespace (`workspace.invalid_line_range`, `chat.invalid_line_range`, …), while the
/// rule that rejects the range is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RangeNamespace {
    /// `workspace_read_file`.
    Workspace,
    /// `chat_read_messages`.
    Chat,
    /// `worldinfo_read_activated`.
    WorldInfo,
    /// `skill_read`.
    Skill,
}

/// Why a requested line range cannot be read. Recoverable: the message tells the model
/// which value to change.
///
/// The error code depends on the calling tool, so this type has no single
/// [`ErrorCode`](crate::ErrorCode); use [`LineRangeError::code_in`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineRangeError {
    #[error("start_line must be 1 or more; line numbers start at 1")]
    StartLineZero,
    #[error("line_count must be 1 or more; omit it to read to the end")]
    LineCountZero,
    #[error(
        "start_line {start_line} is beyond the last line {total_lines}; {}",
        beyond_end_hint(*total_lines)
    )]
    StartBeyondEnd { start_line: u64, total_lines: u64 },
}

fn beyond_end_hint(total_lines: u64) -> String {
    if total_lines == 0 {
        "the text is empty, so omit start_line".to_owned()
    } else {
        format!("use a start_line from 1 to {total_lines}")
    }
}

impl LineRangeError {
    /// The stable error code of this error when raised by a tool of `namespace`.
    pub fn code_in(&self, namespace: RangeNamespace) -> &'static str {
        match namespace {
            RangeNamespace::Workspace => "workspace.invalid_line_range",
            RangeNamespace::Chat => "chat.invalid_line_range",
            RangeNamespace::WorldInfo => "worldinfo.invalid_line_range",
            RangeNamespace::Skill => "skill.invalid_line_range",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_namespace() {
        let err = LineRangeError::StartLineZero;
        assert_eq!(
            err.code_in(RangeNamespace::Workspace),
            "workspace.invalid_line_range"
        );
        assert_eq!(err.code_in(RangeNamespace::Chat), "chat.invalid_line_range");
        assert_eq!(
            err.code_in(RangeNamespace::WorldInfo),
            "worldinfo.invalid_line_range"
        );
        assert_eq!(
            err.code_in(RangeNamespace::Skill),
            "skill.invalid_line_range"
        );
    }

    #[test]
    fn messages_name_the_values() {
        let err = LineRangeError::StartBeyondEnd {
            start_line: 9,
            total_lines: 5,
        };
        assert_eq!(
            err.to_string(),
            "start_line 9 is beyond the last line 5; use a start_line from 1 to 5"
        );
        let empty = LineRangeError::StartBeyondEnd {
            start_line: 2,
            total_lines: 0,
        };
        assert_eq!(
            empty.to_string(),
            "start_line 2 is beyond the last line 0; the text is empty, so omit start_line"
        );
    }
}

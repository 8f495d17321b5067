//! [`ReadBudget`]: how much text one read may put into a model's context.

/// Limits for one reading window. Characters are Unicode scalars and are an internal budget
/// only: models address text by lines, and a read that would exceed the budget returns a
/// preview instead of failing.
///
/// `max_line_chars` caps any single line; a longer line is cut and marked. The named budgets
/// set it equal to `max_chars`, so a line is only ever cut when it alone exceeds the whole
/// budget and every line that fits is reachable by `start_line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadBudget {
    /// Most lines one window shows.
    pub max_lines: usize,
    /// Most characters (summed over the shown lines, separators excluded) one window shows.
    pub max_chars: usize,
    /// Most characters shown of any single line.
    pub max_line_chars: usize,
}

impl ReadBudget {
    /// Most lines any builtin read shows at once.
    pub const MAX_LINES: usize = 1_200;
    /// Characters for a whole-file workspace read: the historical 256 KiB, counted in chars.
    pub const WORKSPACE_FULL_READ_CHARS: usize = 256 * 1_024;
    /// Characters for a workspace read of an explicit range.
    pub const WORKSPACE_RANGE_READ_CHARS: usize = 80_000;
    /// Characters one chat message or world-info entry may contribute to a call.
    pub const ENTRY_CHARS: usize = 8_000;
    /// Characters one `chat_read_messages` or `worldinfo_read_activated` call may return.
    pub const CALL_CHARS: usize = 20_000;

    /// `workspace_read_file` when the model omitted both `start_line` and `line_count`.
    pub const WORKSPACE_FULL: ReadBudget = ReadBudget::chars(Self::WORKSPACE_FULL_READ_CHARS);
    /// `workspace_read_file` when the model gave a `start_line` or a `line_count`.
    pub const WORKSPACE_RANGE: ReadBudget = ReadBudget::chars(Self::WORKSPACE_RANGE_READ_CHARS);

    /// A budget of [`Self::MAX_LINES`] lines and `max_chars` characters, where a single line
    /// may use the whole character budget.
    pub const fn chars(max_chars: usize) -> Self {
        Self {
            max_lines: Self::MAX_LINES,
            max_chars,
            max_line_chars: max_chars,
        }
    }

    /// The budget of a `workspace_read_file` call: the larger whole-file budget when both
    /// range arguments are omitted, the range budget otherwise.
    pub const fn workspace(start_line: Option<u64>, line_count: Option<u64>) -> Self {
        match (start_line, line_count) {
            (None | Some(1), None) => Self::WORKSPACE_FULL,
            _ => Self::WORKSPACE_RANGE,
        }
    }

    /// The budget of one chat message in a `chat_read_messages` call, given the characters
    /// still unused in that call (start from [`Self::CALL_CHARS`]).
    pub const fn chat_message(remaining_in_call: usize) -> Self {
        Self::chars(min(Self::ENTRY_CHARS, remaining_in_call))
    }

    /// The budget of one world-info entry in a `worldinfo_read_activated` call, given the
    /// characters still unused in that call (start from [`Self::CALL_CHARS`]).
    pub const fn worldinfo_entry(remaining_in_call: usize) -> Self {
        Self::chars(min(Self::ENTRY_CHARS, remaining_in_call))
    }

    /// The budget of one `skill_read` call: the profile's per-call limit, or what is left of
    /// the invocation's skill budget if that is less.
    pub const fn skill(per_call: usize, remaining_in_invocation: usize) -> Self {
        Self::chars(min(per_call, remaining_in_invocation))
    }
}

const fn min(a: usize, b: usize) -> usize {
    if a < b { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::ReadBudget;

    #[test]
    fn named_budgets_match_the_documented_limits() {
        assert_eq!(ReadBudget::WORKSPACE_FULL.max_chars, 262_144);
        assert_eq!(ReadBudget::WORKSPACE_FULL.max_lines, 1_200);
        assert_eq!(ReadBudget::WORKSPACE_RANGE.max_chars, 80_000);
        assert_eq!(
            ReadBudget::workspace(None, None),
            ReadBudget::WORKSPACE_FULL
        );
        assert_eq!(
            ReadBudget::workspace(Some(1), None),
            ReadBudget::WORKSPACE_FULL
        );
        assert_eq!(
            ReadBudget::workspace(Some(2), None),
            ReadBudget::WORKSPACE_RANGE
        );
        assert_eq!(
            ReadBudget::workspace(None, Some(5)),
            ReadBudget::WORKSPACE_RANGE
        );
        assert_eq!(ReadBudget::chat_message(20_000).max_chars, 8_000);
        assert_eq!(ReadBudget::chat_message(3_000).max_chars, 3_000);
        assert_eq!(ReadBudget::worldinfo_entry(9_000).max_line_chars, 8_000);
        assert_eq!(ReadBudget::skill(20_000, 80_000).max_chars, 20_000);
        assert_eq!(ReadBudget::skill(20_000, 500).max_chars, 500);
    }
}

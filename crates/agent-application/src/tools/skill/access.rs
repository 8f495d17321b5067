//! What the skill tools share: finding a visible skill, the reading budget, paths inside a
//! skill, refs, and how store errors reach the model.

use agent_domain::ErrorCode;
use agent_domain::tool::BuiltinTool;
use agent_domain::workspace::WorkspacePath;

use crate::ports::{SKILL_PATH_IS_FOLDER, StoreError};
use crate::skills::ResolvedSkill;
use crate::tools::{Args, ToolContext, ToolFailure, ToolFault};

pub(super) const NOT_FOUND: &str = "skill.not_found";
pub(super) const FILE_NOT_TEXT: &str = "skill.file_not_text";
pub(super) const INVALID_PATH: &str = "skill.invalid_path";
pub(super) const INVALID_REQUEST: &str = "skill.invalid_request";
pub(super) const BUDGET_EXHAUSTED: &str = "skill.read_budget_exhausted";

/// The visible skill `name`, or why the invocation may not use it.
pub(super) fn visible_skill(
    ctx: &ToolContext<'_>,
    name: &str,
) -> Result<ResolvedSkill, ToolFailure> {
    ctx.invocation
        .skills
        .resolved
        .lookup(name)
        .cloned()
        .map_err(|denial| {
            let list = ctx.invocation.alias(BuiltinTool::SkillList);
            ToolFailure::recoverable(
                denial.code(),
                format!("{denial}; call {list} to see the skills you can use."),
            )
        })
}

/// Characters the invocation may still read from skills.
pub(super) fn remaining_budget(ctx: &ToolContext<'_>) -> u64 {
    ctx.invocation
        .skills
        .max_chars_per_invocation
        .saturating_sub(ctx.session.skill_chars_used)
}

/// The remaining budget, which must not be zero.
pub(super) fn require_budget(ctx: &ToolContext<'_>) -> Result<u64, ToolFailure> {
    match remaining_budget(ctx) {
        0 => Err(ToolFailure::recoverable(
            BUDGET_EXHAUSTED,
            format!(
                "your skill reading budget for this task ({} characters) is used up; \
                 continue with what you have already read.",
                ctx.invocation.skills.max_chars_per_invocation
            ),
        )),
        remaining => Ok(remaining),
    }
}

/// Records `chars` characters as read.
pub(super) fn charge(ctx: &mut ToolContext<'_>, chars: usize) {
    let used = &mut ctx.session.skill_chars_used;
    *used = used.saturating_add(chars as u64);
}

/// An optional path argument inside a skill; blank counts as absent.
pub(super) fn optional_path(args: &Args, key: &str) -> Result<Option<WorkspacePath>, ToolFailure> {
    match args.optional_str(key)? {
        Some(raw) if !raw.trim().is_empty() => skill_path(raw.trim()).map(Some),
        _ => Ok(None),
    }
}

/// A relative path inside a skill.
pub(super) fn skill_path(raw: &str) -> Result<WorkspacePath, ToolFailure> {
    WorkspacePath::parse(raw).map_err(|_| {
        ToolFailure::recoverable(
            INVALID_PATH,
            format!(
                "`{raw}` is not a path inside the skill; give a relative path such as \
                 `SKILL.md` or `refs/notes.md`, without `..`."
            ),
        )
    })
}

/// The ref of lines `start..=end` of a skill file: `skill:<name>/<path>#L<start>-L<end>`.
pub(super) fn line_ref(name: &str, path: &WorkspacePath, start: u64, end: u64) -> String {
    format!("skill:{name}/{path}#L{start}-L{end}")
}

/// How a store error reaches the model. A skill folder is user content, so a link or special
/// file inside it (an `Integrity` fault of the store) is the model's recoverable problem, not
/// the run's; only I/O and other store faults end the run.
pub(super) fn store_failure(
    ctx: &ToolContext<'_>,
    error: StoreError,
    name: &str,
    path: Option<&WorkspacePath>,
) -> ToolFailure {
    let search = ctx.invocation.alias(BuiltinTool::SkillSearch);
    match error {
        StoreError::NotFound(_) => ToolFailure::recoverable(
            NOT_FOUND,
            match path {
                Some(path) => format!(
                    "skill `{name}` has no file or folder `{path}`; call {search} name={name} \
                     to find its files."
                ),
                None => format!(
                    "skill `{name}` is no longer available; call {} to see the skills you \
                     can use.",
                    ctx.invocation.alias(BuiltinTool::SkillList)
                ),
            },
        ),
        StoreError::Invalid {
            code: SKILL_PATH_IS_FOLDER,
            ..
        } => ToolFailure::recoverable(
            INVALID_REQUEST,
            format!(
                "`{}` is a folder of skill `{name}`, not a file; read one of its files, or \
                 call {search} name={name} with this path to find them.",
                path.map(WorkspacePath::as_str).unwrap_or_default()
            ),
        ),
        StoreError::Invalid { message, .. } => ToolFailure::recoverable(INVALID_REQUEST, message),
        StoreError::Integrity(_) => {
            let subject = match path {
                Some(path) => format!("`{path}` of skill `{name}` is or contains"),
                None => format!("skill `{name}` contains"),
            };
            ToolFailure::recoverable(
                INVALID_PATH,
                format!(
                    "{subject} a link or special file; only plain files inside the skill \
                     folder can be read or searched."
                ),
            )
        }
        fault => ToolFailure::Fatal(ToolFault::from(&fault)),
    }
}

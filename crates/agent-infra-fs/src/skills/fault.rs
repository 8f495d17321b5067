//! [`SkillFault`]: why a skill folder, its `SKILL.md` or the skill index cannot be used, each
//! with its `skill.*` code. A listing reports faults as problems; an import or removal
//! refuses with them.

use agent_application::ports::{SkillProblem, SkillScope, StoreError};
use agent_domain::ErrorCode;

use super::manifest::MAX_SKILL_MD_BYTES;

/// The problem's folder for faults of the index itself.
pub(crate) const INDEX_FOLDER: &str = "index/skills.json";

/// Why a skill (or the index) is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SkillFault {
    #[error("the folder has no SKILL.md")]
    SkillMdMissing,
    #[error("SKILL.md is not a regular file (a link, a folder or a special file)")]
    SkillMdNotAFile,
    #[error("SKILL.md has {0} bytes; at most {MAX_SKILL_MD_BYTES} are allowed")]
    SkillMdTooLarge(u64),
    #[error("SKILL.md is not UTF-8 text")]
    SkillMdNotUtf8,
    #[error("cannot read the skill: {0}")]
    Unreadable(String),
    #[error("SKILL.md must start with a `---` line that opens its YAML front matter")]
    FrontMatterMissing,
    #[error("the front matter of SKILL.md is not closed by a `---` line")]
    FrontMatterUnclosed,
    #[error("the front matter of SKILL.md is not valid YAML: {0}")]
    FrontMatterInvalid(String),
    #[error("the front matter of SKILL.md has no `name` (a non-empty string)")]
    NameMissing,
    #[error("the front matter of SKILL.md has no `description` (a non-empty string)")]
    DescriptionMissing,
    #[error("`{0}` is not a valid skill name: use 1-128 characters of a-z, 0-9, `_` and `-`")]
    NameInvalid(String),
    #[error("SKILL.md names the skill `{name}`, but its folder is `{folder}`")]
    NameMismatch { name: String, folder: String },
    #[error("`{0}` cannot be a skill folder: a skill's folder is its name (a-z, 0-9, `_`, `-`)")]
    FolderNameInvalid(String),
    #[error("the skill folder is a symbolic link")]
    FolderIsLink,
    #[error("{0}")]
    UnsafeFile(String),
    #[error("{0}")]
    PackageInvalid(String),
    #[error("agents/tauritavern.json is not usable: {0}")]
    SidecarInvalid(String),
    #[error("{0}")]
    IndexInvalid(String),
    #[error(
        "the skill index has version {0}, which this version of tavern-agent does not know; \
         it is left as it is and nothing is installed or removed until a newer version reads it"
    )]
    IndexVersionUnsupported(u64),
    #[error("{0}")]
    MigrationFailed(String),
    #[error("{0}")]
    StrayFolder(String),
    #[error("{0}")]
    ScopeUnknown(String),
    #[error("{0}")]
    FolderMissing(String),
    #[error("{0}")]
    NotIndexed(String),
    #[error("the skill archive cannot be read: {0}")]
    ArchiveInvalid(String),
    #[error(
        "the skill archive has {0} entries; at most {max} are allowed",
        max = super::archive::MAX_ENTRIES
    )]
    ArchiveTooManyEntries(usize),
    #[error(
        "`{path}` in the skill archive unpacks to {bytes} bytes or more; at most {max} are \
         allowed per file",
        max = super::package::MAX_FILE_BYTES
    )]
    ArchiveEntryTooLarge { path: String, bytes: u64 },
    #[error(
        "the skill archive unpacks to {0} bytes or more; at most {max} are allowed in all",
        max = super::package::MAX_TOTAL_BYTES
    )]
    ArchiveTooLarge(u64),
    #[error("{0}")]
    ArchiveUnsafeEntry(String),
    #[error("`{0}` in the skill archive is a symbolic link; links are not allowed in a skill")]
    ArchiveLink(String),
    #[error(
        "the `name` of SKILL.md is not one plain `name: ...` line, so it cannot be rewritten; \
         edit SKILL.md by hand ({0})"
    )]
    NameNotRewritable(String),
}

impl ErrorCode for SkillFault {
    fn code(&self) -> &'static str {
        match self {
            Self::SkillMdMissing => "skill.skill_md_missing",
            Self::SkillMdNotAFile => "skill.skill_md_not_a_file",
            Self::SkillMdTooLarge(_) => "skill.skill_md_too_large",
            Self::SkillMdNotUtf8 => "skill.skill_md_not_utf8",
            Self::Unreadable(_) => "skill.unreadable",
            Self::FrontMatterMissing => "skill.front_matter_missing",
            Self::FrontMatterUnclosed => "skill.front_matter_unclosed",
            Self::FrontMatterInvalid(_) => "skill.front_matter_invalid",
            Self::NameMissing => "skill.front_matter_name_missing",
            Self::DescriptionMissing => "skill.front_matter_description_missing",
            Self::NameInvalid(_) => "skill.name_invalid",
            Self::NameMismatch { .. } => "skill.name_mismatch",
            Self::FolderNameInvalid(_) => "skill.folder_name_invalid",
            Self::FolderIsLink => "skill.folder_is_link",
            Self::UnsafeFile(_) => "skill.unsafe_file",
            Self::PackageInvalid(_) => "skill.package_invalid",
            Self::SidecarInvalid(_) => "skill.sidecar_invalid",
            Self::IndexInvalid(_) => "skill.index_invalid",
            Self::IndexVersionUnsupported(_) => "skill.index_version_unsupported",
            Self::MigrationFailed(_) => "skill.index_migration_failed",
            Self::StrayFolder(_) => "skill.stray_folder",
            Self::ScopeUnknown(_) => "skill.scope_unknown",
            Self::FolderMissing(_) => "skill.folder_missing",
            Self::NotIndexed(_) => "skill.not_indexed",
            Self::ArchiveInvalid(_) => "skill.archive_invalid",
            Self::ArchiveTooManyEntries(_) => "skill.archive_too_many_entries",
            Self::ArchiveEntryTooLarge { .. } => "skill.archive_entry_too_large",
            Self::ArchiveTooLarge(_) => "skill.archive_too_large",
            Self::ArchiveUnsafeEntry(_) => "skill.archive_unsafe_entry",
            Self::ArchiveLink(_) => "skill.archive_link",
            Self::NameNotRewritable(_) => "skill.name_not_rewritable",
        }
    }
}

impl SkillFault {
    /// The problem of the skill in `folder` of `scope`.
    pub(crate) fn in_scope(&self, scope: &SkillScope, folder: &str) -> SkillProblem {
        SkillProblem::in_scope(scope, folder, self.code(), self.to_string())
    }

    /// A problem of the store as a whole, about `folder` (relative to the skills root).
    pub(crate) fn of_store(&self, folder: &str) -> SkillProblem {
        SkillProblem::of_store(Some(folder.to_owned()), self.code(), self.to_string())
    }

    /// The refusal of a request this fault stands in the way of.
    pub(crate) fn refusal(&self) -> StoreError {
        StoreError::Invalid {
            code: self.code(),
            message: self.to_string(),
        }
    }
}

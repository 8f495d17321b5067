//! [`WorkspacePath`]: a validated, normalised, relative path inside a run workspace.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ErrorCode;

/// The longest segment (file or folder name) in UTF-8 bytes: what Linux, macOS and Windows
/// file systems hold in one name. Stores stage writes under names that never embed the file's
/// own name, so every name up to this limit can be written.
pub const MAX_SEGMENT_BYTES: usize = 255;

/// The longest normalised path in bytes, which keeps the absolute path of a file well inside
/// the 4096 bytes a path given to the operating system may have.
pub const MAX_PATH_BYTES: usize = 1024;

/// A relative workspace path in normal form: `/`-separated segments, none of them empty,
/// `.` or `..`, none longer than [`MAX_SEGMENT_BYTES`], the whole at most [`MAX_PATH_BYTES`].
/// Validation is purely lexical; confinement against symlinks is the store's job.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkspacePath(String);

impl WorkspacePath {
    /// Validates and normalises a path supplied by a model, a profile or a caller.
    ///
    /// Backslashes count as separators, so `output\\main.md` is `output/main.md`; `.` and
    /// empty segments are dropped (`output/./main.md`, `output//main.md`).
    pub fn parse(raw: &str) -> Result<Self, WorkspacePathError> {
        if raw.is_empty() {
            return Err(WorkspacePathError::Empty);
        }
        if raw.contains('\0') {
            return Err(WorkspacePathError::ContainsNul);
        }
        if raw.starts_with('/') || raw.starts_with('\\') {
            return Err(WorkspacePathError::Absolute);
        }
        let mut segments = Vec::new();
        for segment in raw.split(['/', '\\']) {
            match segment {
                "" | "." => {}
                ".." => return Err(WorkspacePathError::ParentSegment),
                long if long.len() > MAX_SEGMENT_BYTES => {
                    return Err(WorkspacePathError::SegmentTooLong { bytes: long.len() });
                }
                other => segments.push(other),
            }
        }
        // Checked after dropping `.` segments, which could hide a drive (`./C:/x`).
        let first = segments.first().map_or(&[][..], |s| s.as_bytes());
        if first.len() >= 2 && first[0].is_ascii_alphabetic() && first[1] == b':' {
            return Err(WorkspacePathError::DrivePrefix);
        }
        if segments.is_empty() {
            return Err(WorkspacePathError::Empty);
        }
        let path = segments.join("/");
        if path.len() > MAX_PATH_BYTES {
            return Err(WorkspacePathError::TooLong { bytes: path.len() });
        }
        Ok(Self(path))
    }

    /// The normalised path text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path's segments, first to last.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// The first segment: the workspace root this path lives under (if it is a root at all).
    pub fn first_segment(&self) -> &str {
        self.0.split('/').next().unwrap_or_default()
    }

    /// The last segment.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or_default()
    }

    /// The parent directory, or `None` for a single-segment path.
    pub fn parent(&self) -> Option<WorkspacePath> {
        self.0
            .rsplit_once('/')
            .map(|(parent, _)| Self(parent.to_owned()))
    }

    /// Whether `self` equals `ancestor` or lies below it (segment-wise, so `output_extra`
    /// is not below `output`).
    pub fn starts_with(&self, ancestor: &WorkspacePath) -> bool {
        self.0 == ancestor.0
            || (self.0.starts_with(&ancestor.0)
                && self.0.as_bytes().get(ancestor.0.len()) == Some(&b'/'))
    }

    /// `self/child`, where `child` is itself a valid relative path.
    pub fn join(&self, child: &WorkspacePath) -> WorkspacePath {
        Self(format!("{}/{}", self.0, child.0))
    }

    /// The file extension (after the last `.` of the file name), lower-cased.
    pub fn extension(&self) -> Option<String> {
        let name = self.file_name();
        name.rsplit_once('.')
            .filter(|(stem, _)| !stem.is_empty())
            .map(|(_, ext)| ext.to_ascii_lowercase())
    }
}

impl fmt::Display for WorkspacePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for WorkspacePath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for WorkspacePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// Why a string is not a workspace path. All of these are recoverable for a model
/// (`workspace.invalid_path`); the variant says which rule was broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspacePathError {
    #[error("workspace path cannot be empty")]
    Empty,
    #[error("workspace path cannot contain a NUL character")]
    ContainsNul,
    #[error("workspace path must be relative")]
    Absolute,
    #[error("workspace path cannot use a Windows drive prefix")]
    DrivePrefix,
    #[error("workspace path cannot contain `..`")]
    ParentSegment,
    #[error(
        "a file or folder name is {bytes} bytes long; names can be at most \
         {MAX_SEGMENT_BYTES} bytes (UTF-8)"
    )]
    SegmentTooLong { bytes: usize },
    #[error("workspace path is {bytes} bytes long; paths can be at most {MAX_PATH_BYTES} bytes")]
    TooLong { bytes: usize },
}

impl ErrorCode for WorkspacePathError {
    fn code(&self) -> &'static str {
        "workspace.invalid_path"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_separators_and_dots() {
        let cases = [
            ("output/main.md", "output/main.md"),
            ("output/./main.md", "output/main.md"),
            ("output//main.md", "output/main.md"),
            ("output\\notes\\a.md", "output/notes/a.md"),
            ("./output/", "output"),
            ("output", "output"),
        ];
        for (raw, normal) in cases {
            assert_eq!(
                WorkspacePath::parse(raw).unwrap().as_str(),
                normal,
                "{raw:?}"
            );
        }
    }

    #[test]
    fn rejects_every_hostile_form() {
        use WorkspacePathError::*;
        let cases = [
            ("", Empty),
            ("./", Empty),
            (".", Empty),
            ("//", Absolute),
            ("/etc/passwd", Absolute),
            ("\\\\server\\share", Absolute),
            ("C:\\x", DrivePrefix),
            ("c:x", DrivePrefix),
            // Found by the `workspace_path` fuzz target: the dot hid the drive.
            ("./C:/x", DrivePrefix),
            (".\\c:", DrivePrefix),
            ("//./C:x", Absolute),
            ("a\0b", ContainsNul),
            ("..", ParentSegment),
            ("../x", ParentSegment),
            ("output/../x", ParentSegment),
            ("output/..", ParentSegment),
            ("output\\..\\x", ParentSegment),
        ];
        for (raw, expected) in cases {
            let err = WorkspacePath::parse(raw).unwrap_err();
            assert_eq!(err, expected, "{raw:?}");
            assert_eq!(err.code(), "workspace.invalid_path");
        }
    }

    #[test]
    fn names_and_paths_have_byte_limits() {
        let name = |bytes: usize| "n".repeat(bytes);
        for bytes in [218, 250, 255] {
            let raw = format!("output/{}", name(bytes));
            assert_eq!(WorkspacePath::parse(&raw).unwrap().file_name().len(), bytes);
        }
        let err = WorkspacePath::parse(&format!("output/{}", name(256))).unwrap_err();
        assert_eq!(err, WorkspacePathError::SegmentTooLong { bytes: 256 });
        assert_eq!(err.code(), "workspace.invalid_path");
        assert!(err.to_string().contains("at most 255 bytes"), "{err}");
        // Characters count by their UTF-8 bytes: 128 × 2 bytes = 256.
        let wide = format!("output/{}", "é".repeat(128));
        assert!(matches!(
            WorkspacePath::parse(&wide),
            Err(WorkspacePathError::SegmentTooLong { bytes: 256 })
        ));
        // A folder name is a segment too.
        assert!(WorkspacePath::parse(&format!("{}/a.md", name(256))).is_err());
        // Dropped `.` and empty segments do not count towards the whole.
        let deep = vec![name(200); 5].join("/");
        assert_eq!(WorkspacePath::parse(&deep).unwrap().as_str().len(), 1004);
        let deeper = format!("{deep}/{}", name(20));
        let err = WorkspacePath::parse(&deeper).unwrap_err();
        assert_eq!(err, WorkspacePathError::TooLong { bytes: 1025 });
        assert!(err.to_string().contains("at most 1024 bytes"), "{err}");
    }

    #[test]
    fn ancestry_is_segment_wise() {
        let root = WorkspacePath::parse("output").unwrap();
        assert!(
            WorkspacePath::parse("output/a.md")
                .unwrap()
                .starts_with(&root)
        );
        assert!(root.starts_with(&root));
        assert!(
            !WorkspacePath::parse("output_extra/a.md")
                .unwrap()
                .starts_with(&root)
        );
        assert!(!WorkspacePath::parse("outputs").unwrap().starts_with(&root));
    }

    #[test]
    fn parts() {
        let p = WorkspacePath::parse("output/notes/Draft.MD").unwrap();
        assert_eq!(p.first_segment(), "output");
        assert_eq!(p.file_name(), "Draft.MD");
        assert_eq!(p.extension().as_deref(), Some("md"));
        assert_eq!(p.parent().unwrap().as_str(), "output/notes");
        assert_eq!(WorkspacePath::parse(".hidden").unwrap().extension(), None);
        assert_eq!(p.segments().count(), 3);
    }
}

//! Telling whether a chat file is still the one a cached index or a lock was taken on.

use std::fs::Metadata;
use std::time::SystemTime;

/// A file's identity and version as far as its metadata tells. Writers replace chats by
/// renaming a new file into place, which changes the identity on Unix even when the length
/// and modification time happen to match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    identity: (u64, u64),
}

impl FileStamp {
    pub(crate) fn of(meta: &Metadata) -> Self {
        Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            identity: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino())
            },
        }
    }

    pub(crate) fn file_len(&self) -> u64 {
        self.len
    }

    /// Whether both stamps name the same file (on Unix, the same inode; elsewhere, the same
    /// length and modification time).
    pub(crate) fn same_file(&self, other: &Self) -> bool {
        #[cfg(unix)]
        {
            self.identity == other.identity
        }
        #[cfg(not(unix))]
        {
            self == other
        }
    }
}

//! [`names_in`]: the names of one folder's entries of one kind, as the stores list them
//! (lorebooks, personas, groups, chat workspaces). Links are never followed, so a link
//! planted in a listed folder is neither a file nor a folder here.

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::StoreError;

use crate::runs::store_io::io_error;

/// Which entries [`names_in`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    File,
    Folder,
}

/// The UTF-8 names of the entries of `dir` of `kind` (not links), unsorted; empty when
/// `dir` does not exist.
pub(crate) fn names_in(dir: &Path, kind: EntryKind) -> Result<Vec<String>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(dir, err)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let file_type = entry
            .file_type()
            .map_err(|err| io_error(&entry.path(), err))?;
        let wanted = match kind {
            EntryKind::File => file_type.is_file(),
            EntryKind::Folder => file_type.is_dir(),
        };
        if let (true, Ok(name)) = (wanted, entry.file_name().into_string()) {
            names.push(name);
        }
    }
    Ok(names)
}

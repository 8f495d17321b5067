//! Files named on the command line (`--script`, `--prompt-snapshot`, `profiles save
//! FILE`), read safely: only regular files, never more than [`MAX_INPUT_BYTES`]. A FIFO or a
//! device (`/dev/zero`) would otherwise block the command forever or fill its memory; it
//! is refused before anything is read from it (`docs/cli.md`, "Files given on the command
//! line").

use std::fmt;
use std::fs::{self, File, FileType, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use crate::exit::{Exit, Failed};

/// The largest file read from the command line: 16 MiB, far above any real script,
/// snapshot or profile.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Which file is read, for the codes of its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// `--script`: `script.unreadable`, `script.too_large` (`docs/scripted-model.md`).
    Script,
    /// Any other file: `cli.file_unreadable`, `cli.file_too_large`.
    Other,
}

impl InputKind {
    fn unreadable(self) -> &'static str {
        match self {
            Self::Script => "script.unreadable",
            Self::Other => "cli.file_unreadable",
        }
    }

    fn too_large(self) -> &'static str {
        match self {
            Self::Script => "script.too_large",
            Self::Other => "cli.file_too_large",
        }
    }
}

/// Why a file could not be read.
#[derive(Debug)]
enum InputError {
    /// A FIFO, a device, a socket or a directory.
    NotAFile(&'static str),
    TooLarge,
    NotUtf8,
    Io(io::Error),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAFile(kind) => write!(f, "{kind}, not a regular file"),
            Self::TooLarge => write!(
                f,
                "larger than {MAX_INPUT_BYTES} bytes (16 MiB), the most a file given on \
                 the command line may hold"
            ),
            Self::NotUtf8 => f.write_str("not UTF-8 text"),
            Self::Io(error) => error.fmt(f),
        }
    }
}

/// Reads a text file named on the command line; any problem is a usage error (exit 2)
/// with the code of `kind`, naming the file.
pub fn read_input(path: &Path, kind: InputKind) -> Result<String, Failed> {
    read(path).map_err(|error| {
        let code = match error {
            InputError::TooLarge => kind.too_large(),
            _ => kind.unreadable(),
        };
        Failed::new(
            Exit::Usage,
            code,
            format!("cannot read {}: {error}", path.display()),
        )
    })
}

fn read(path: &Path) -> Result<String, InputError> {
    // Checked before opening: opening a FIFO for reading waits for a writer.
    check(&fs::metadata(path).map_err(InputError::Io)?)?;
    let file = open(path).map_err(InputError::Io)?;
    // Checked again on the open file, in case the path was replaced in between.
    check(&file.metadata().map_err(InputError::Io)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(InputError::Io)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8)
}

fn check(meta: &fs::Metadata) -> Result<(), InputError> {
    if !meta.is_file() {
        return Err(InputError::NotAFile(describe(meta.file_type())));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge);
    }
    Ok(())
}

/// Opens for reading without waiting: on Unix with `O_NONBLOCK`, so a path swapped for a
/// FIFO after the check does not hang the open (the second check then refuses it).
fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn describe(file_type: FileType) -> &'static str {
    if file_type.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn code_and_message(path: &Path, kind: InputKind) -> (String, String) {
        let failed = read_input(path, kind).unwrap_err();
        assert_eq!(failed.exit, Exit::Usage);
        (failed.code.to_owned(), failed.message)
    }

    #[test]
    fn reads_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        fs::write(&path, "{}").unwrap();
        assert_eq!(read_input(&path, InputKind::Other).unwrap(), "{}");
    }

    #[test]
    fn refuses_directories_missing_files_and_non_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let (code, message) = code_and_message(dir.path(), InputKind::Script);
        assert_eq!(code, "script.unreadable");
        assert!(
            message.ends_with("a directory, not a regular file"),
            "{message}"
        );
        let (code, _) = code_and_message(&dir.path().join("missing"), InputKind::Other);
        assert_eq!(code, "cli.file_unreadable");
        let binary = dir.path().join("bin");
        fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
        let (_, message) = code_and_message(&binary, InputKind::Other);
        assert!(message.ends_with("not UTF-8 text"), "{message}");
    }

    #[test]
    fn refuses_a_file_over_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let file = File::create(&path).unwrap();
        // Sparse: no 16 MiB of disk is written.
        file.set_len(MAX_INPUT_BYTES + 1).unwrap();
        let (code, message) = code_and_message(&path, InputKind::Script);
        assert_eq!(code, "script.too_large");
        assert!(message.contains("16 MiB"), "{message}");
        file.set_len(MAX_INPUT_BYTES).unwrap();
        assert_eq!(
            read_input(&path, InputKind::Script).unwrap().len() as u64,
            MAX_INPUT_BYTES
        );
    }

    #[cfg(unix)]
    #[test]
    fn refuses_devices_without_reading_them() {
        let (code, message) = code_and_message(Path::new("/dev/zero"), InputKind::Script);
        assert_eq!(code, "script.unreadable");
        assert!(message.contains("a character device"), "{message}");
    }
}

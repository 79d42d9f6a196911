//! Opening and reading the files a user names (task files, pools, datasets, configs, profiles,
//! token files): only regular files, and never more than a bound. A device such as `/dev/zero`
//! read whole grows memory without end and a FIFO blocks its reader forever, so both are
//! refused by name before they are opened; a regular file over its bound is refused, never read
//! past it.

use crate::error::{CoreError, Result};
use std::io::Read;
use std::path::Path;

/// The most a text input read whole may hold (a task file, a pool, a JSONL dataset, a config):
/// 4 GiB.
pub const TEXT_LIMIT: u64 = 4 << 30;

/// What `path` is, when it is not a regular file; `None` for a regular file (or a link to one).
fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Refuses `path` unless it is a regular file (links are followed), naming what it is.
pub(crate) fn check_regular(path: &Path) -> Result<std::fs::Metadata> {
    let meta = std::fs::metadata(path).map_err(|e| CoreError::io(path, e))?;
    match not_regular(&meta) {
        None => Ok(meta),
        Some(what) => Err(CoreError::invalid(
            path,
            format!("is {what}, not a regular file; give a file"),
        )),
    }
}

/// Opens a regular file for reading (anything else is refused before it is opened).
pub fn open_input(path: &Path) -> Result<std::fs::File> {
    check_regular(path)?;
    let file = std::fs::File::open(path).map_err(|e| CoreError::io(path, e))?;
    // The path may have been replaced between the check and the open.
    let meta = file.metadata().map_err(|e| CoreError::io(path, e))?;
    match not_regular(&meta) {
        None => Ok(file),
        Some(what) => Err(CoreError::invalid(
            path,
            format!("is {what}, not a regular file; give a file"),
        )),
    }
}

/// Reads a whole regular file of at most `limit` bytes.
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let file = open_input(path)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > limit {
        return Err(too_large(path, limit));
    }
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| CoreError::io(path, e))?;
    if out.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(out)
}

/// Reads a whole regular file of at most `limit` bytes as UTF-8 text.
pub fn read_input_text(path: &Path, limit: u64) -> Result<String> {
    String::from_utf8(read_input(path, limit)?).map_err(|e| {
        CoreError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
        )
    })
}

fn too_large(path: &Path, limit: u64) -> CoreError {
    CoreError::invalid(
        path,
        format!("is larger than the limit of {limit} bytes for this input"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_folders_are_refused_by_name_and_reads_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_input(Path::new("/dev/zero"), TEXT_LIMIT)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/dev/zero") && e.contains("character device"), "{e}");
        let e = read_input(dir.path(), TEXT_LIMIT).unwrap_err().to_string();
        assert!(e.contains("a folder"), "{e}");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("tasks.jsonl");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
            assert!(made.success());
            // Opening a FIFO with no writer would block: it is refused before it is opened.
            let e = open_input(&fifo).unwrap_err().to_string();
            assert!(e.contains("tasks.jsonl") && e.contains("FIFO"), "{e}");
        }
        let f = dir.path().join("t.txt");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(read_input_text(&f, 10).unwrap(), "0123456789");
        let e = read_input(&f, 9).unwrap_err().to_string();
        assert!(e.contains("larger than the limit of 9 bytes"), "{e}");
    }
}

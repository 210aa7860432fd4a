//! A file rotated by size: [`Rotation`] and the writer that follows it.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// When an audit file is rotated and how many old files are kept: once the file would pass
/// `max_bytes`, `FILE` becomes `FILE.1`, `FILE.1` becomes `FILE.2` and so on, the oldest past
/// `keep` removed. A line is never split across files.
///
/// ```
/// use lazytool_mcp::Rotation;
///
/// let rotation = Rotation::default();
/// assert_eq!((rotation.max_bytes, rotation.keep), (10 * 1024 * 1024, 5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rotation {
    /// The size a file may reach before the next line starts a new one.
    pub max_bytes: u64,
    /// How many rotated files are kept (0: none, the file starts again empty).
    pub keep: u32,
}

impl Default for Rotation {
    fn default() -> Self {
        Rotation {
            max_bytes: 10 * 1024 * 1024,
            keep: 5,
        }
    }
}

/// The audit file, appended to, rotated before a line would take it past its size.
pub(crate) struct RotatingFile {
    path: PathBuf,
    rotation: Rotation,
    file: File,
    written: u64,
}

impl RotatingFile {
    pub(crate) fn open(path: &Path, rotation: Rotation) -> io::Result<Self> {
        let file = append(path)?;
        let written = file.metadata()?.len();
        Ok(RotatingFile {
            path: path.to_path_buf(),
            rotation,
            file,
            written,
        })
    }

    fn rotated(&self, n: u32) -> PathBuf {
        let mut name = self.path.clone().into_os_string();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file.flush()?;
        if self.rotation.keep == 0 {
            self.file = File::create(&self.path)?;
        } else {
            for n in (1..self.rotation.keep).rev() {
                let from = self.rotated(n);
                if from.exists() {
                    std::fs::rename(&from, self.rotated(n + 1))?;
                }
            }
            std::fs::rename(&self.path, self.rotated(1))?;
            self.file = append(&self.path)?;
        }
        self.written = 0;
        Ok(())
    }

    /// Writes one whole line (its newline included), rotating first if it would not fit.
    pub(crate) fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let len = line.len() as u64;
        if self.written > 0 && self.written + len > self.rotation.max_bytes {
            self.rotate()?;
        }
        self.file.write_all(line)?;
        self.written += len;
        Ok(())
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

fn append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotates_at_the_size_keeping_whole_lines_and_at_most_keep_files() {
        let dir = std::env::temp_dir().join(format!("lazytool-rotate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("as set up");
        let path = dir.join("audit.jsonl");
        let rotation = Rotation {
            max_bytes: 25,
            keep: 2,
        };
        let mut file = RotatingFile::open(&path, rotation).expect("as set up");
        for n in 0..10 {
            file.write_line(format!("line {n:04}\n").as_bytes())
                .expect("as set up"); // 10 bytes each
        }
        file.flush().expect("as set up");
        let read = |path: &Path| std::fs::read_to_string(path).expect("as set up");
        assert_eq!(read(&path), "line 0008\nline 0009\n");
        assert_eq!(read(&dir.join("audit.jsonl.1")), "line 0006\nline 0007\n");
        assert_eq!(read(&dir.join("audit.jsonl.2")), "line 0004\nline 0005\n");
        assert!(!dir.join("audit.jsonl.3").exists());
        std::fs::remove_dir_all(&dir).expect("as set up");
    }
}

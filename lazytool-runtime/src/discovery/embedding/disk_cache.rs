//! Tool vectors on disk, so that a start with the same tools embeds nothing: one file per
//! vector, named by the hash of the model and of the text embedded ([`Key`]).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// What a vector is cached under: the SHA-256 of the embedder's id and of the text.
pub(crate) type Key = [u8; 32];

/// The key of `text` embedded by the embedder `id`.
pub(crate) fn key(id: &str, text: &str) -> Key {
    let mut hasher = Sha256::new();
    hasher.update((id.len() as u64).to_le_bytes());
    hasher.update(id.as_bytes());
    hasher.update(text.as_bytes());
    hasher.finalize().into()
}

/// Where the vectors of `key` are kept under `dir`: a folder per model, a file per text.
fn path(dir: &Path, id: &str, key: &Key) -> PathBuf {
    let model: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let hex: String = key.iter().map(|byte| format!("{byte:02x}")).collect();
    dir.join(model).join(format!("{hex}.f32"))
}

/// The vector cached under `key`, if its file holds one of `dimension` values (any, if
/// `None`); a missing or damaged file is no vector.
pub(crate) fn read(dir: &Path, id: &str, key: &Key, dimension: Option<usize>) -> Option<Vec<f32>> {
    let bytes = std::fs::read(path(dir, id, key)).ok()?;
    if bytes.is_empty() || bytes.len() % 4 != 0 {
        return None;
    }
    let vector: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect();
    let fits = dimension.is_none_or(|dimension| vector.len() == dimension);
    (fits && vector.iter().all(|value| value.is_finite())).then_some(vector)
}

/// Caches `vector` under `key`: written whole to a temporary file, then renamed, so that a
/// reader never sees half a vector.
pub(crate) fn write(dir: &Path, id: &str, key: &Key, vector: &[f32]) -> std::io::Result<()> {
    let path = path(dir, id, key);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = std::fs::File::create(&temporary)?;
    let bytes: Vec<u8> = vector
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect();
    file.write_all(&bytes)?;
    drop(file);
    std::fs::rename(&temporary, &path)
}

//! What this session has read and written: per file, its size, modification time and a hash of
//! its bytes as last seen, so a write can tell a file the model has read from one it has not,
//! and one that changed on disk since.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// A file as this session last saw it. Serializable, so a session can be kept between runs
/// (`toolbox call --session`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time.
    pub modified: Option<SystemTime>,
    /// A hash of its bytes.
    pub hash: u64,
}

impl Seen {
    /// A file's bytes and modification time, as seen now.
    #[must_use]
    pub fn of(bytes: &[u8], modified: Option<SystemTime>) -> Self {
        Seen {
            size: bytes.len() as u64,
            modified,
            hash: content_hash(bytes),
        }
    }
}

/// The files a session has read or written. Each coordinator session keeps its own; give
/// coordinators `.shared_state(Arc::clone(&one))` to make them share one.
///
/// ```
/// use tool_std::fs::{FileSession, Seen};
///
/// let session = FileSession::default();
/// let path = std::path::Path::new("/work/notes.md");
/// assert!(session.seen(path).is_none());
/// session.record(path, Seen::of(b"# Notes\n", None));
/// assert_eq!(session.seen(path).unwrap().size, 8);
/// ```
#[derive(Debug, Default)]
pub struct FileSession {
    files: Mutex<HashMap<PathBuf, Seen>>,
    /// The bytes of small files as last seen, to say what changed when they change under a
    /// model's feet.
    contents: Mutex<HashMap<PathBuf, std::sync::Arc<[u8]>>>,
}

/// Files up to this size are kept as seen.
pub const KEPT_CONTENT: usize = 1 << 20;

impl FileSession {
    /// How this session last saw the file at `path` (an absolute, resolved path).
    #[must_use]
    pub fn seen(&self, path: &Path) -> Option<Seen> {
        self.lock().get(path).copied()
    }

    /// Every file this session has seen, with how it last saw it, in no particular order.
    ///
    /// ```
    /// use tool_std::fs::{FileSession, Seen};
    ///
    /// let session = FileSession::default();
    /// session.record(std::path::Path::new("/work/a.rs"), Seen::of(b"fn a() {}", None));
    /// let files = session.files();
    /// assert_eq!(files.len(), 1);
    /// assert_eq!(files[0].1.size, 9);
    /// ```
    #[must_use]
    pub fn files(&self) -> Vec<(PathBuf, Seen)> {
        self.lock()
            .iter()
            .map(|(path, seen)| (path.clone(), *seen))
            .collect()
    }

    /// Remembers how the file at `path` is now.
    pub fn record(&self, path: &Path, seen: Seen) {
        self.lock().insert(path.to_owned(), seen);
    }

    /// Remembers how the file at `path` is now, with its bytes when it is small
    /// ([`KEPT_CONTENT`]), to say later what changed.
    pub fn record_content(&self, path: &Path, bytes: &[u8], modified: Option<SystemTime>) {
        self.record_seen_content(path, bytes, Seen::of(bytes, modified));
    }

    /// [`record_content`](Self::record_content) for a reader that hashed the bytes as it read
    /// them: `seen` is theirs.
    pub(crate) fn record_seen_content(&self, path: &Path, bytes: &[u8], seen: Seen) {
        self.record(path, seen);
        let mut contents = self
            .contents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if bytes.len() <= KEPT_CONTENT {
            contents.insert(path.to_owned(), bytes.into());
        } else {
            contents.remove(path);
        }
    }

    /// The bytes of the file at `path` as this session last saw them, when it was small.
    #[must_use]
    pub fn content(&self, path: &Path) -> Option<std::sync::Arc<[u8]>> {
        self.contents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(path)
            .cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Seen>> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A fast 64-bit hash that tells two versions of a file apart (not an adversary's: it guards
/// against stale reads, not tampering). Eight bytes at a time, as rustc's FxHash mixes words,
/// with the length folded in; see [`Hasher`] for how a long input goes faster.
pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    Hasher::default().update(bytes).finish()
}

/// The hash a line's anchor is made from: [`Hasher::one_chain`], the same whatever the line's
/// length in every version, so that an anchor read before an upgrade (or from another
/// instance behind a load balancer) still finds its line.
pub(crate) fn line_hash(bytes: &[u8]) -> u64 {
    Hasher::one_chain().update(bytes).finish()
}

/// [`content_hash`] over bytes given in pieces: the same hash whatever the pieces.
///
/// Each word's mix waits for the one before it (a multiplication's latency), so one chain of
/// words goes at a few cycles a word. Whole 32-byte blocks are mixed into four chains side by
/// side instead, folded together at the end: about four times the speed on a large file. An
/// input shorter than a block is one chain of its words either way. Lines, whose hash gives
/// their anchor, are hashed as [`one_chain`](Self::one_chain) whatever their length: anchors
/// were made that way before blocks, and must not change.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hasher {
    /// Every word mixed into `hash` in turn, blocks too.
    one_chain: bool,
    hash: u64,
    /// The chains the blocks are mixed into, word `i` of each block into chain `i`.
    lanes: [u64; 4],
    /// Bytes not yet mixed in (fewer than a block).
    pending: [u8; BLOCK],
    pending_len: usize,
    total: u64,
}

const BLOCK: usize = 32;

impl Hasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn mix(state: u64, word: u64) -> u64 {
        (state.rotate_left(5) ^ word).wrapping_mul(Self::SEED)
    }

    fn word(bytes: &[u8]) -> u64 {
        let mut array = [0u8; 8];
        array[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(array)
    }

    /// A hasher of one chain, for lines: slower on a long input, the same hash as ever.
    pub(crate) fn one_chain() -> Self {
        Hasher {
            one_chain: true,
            ..Hasher::default()
        }
    }

    fn block(&mut self, block: &[u8]) {
        if self.one_chain {
            for word in block.chunks_exact(8) {
                self.hash = Self::mix(self.hash, Self::word(word));
            }
            return;
        }
        for (lane, word) in self.lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = Self::mix(*lane, Self::word(word));
        }
    }

    /// Mixes in more bytes.
    pub(crate) fn update(mut self, mut bytes: &[u8]) -> Self {
        self.total += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = (BLOCK - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < BLOCK {
                return self;
            }
            let pending = self.pending;
            self.block(&pending);
            self.pending_len = 0;
        }
        let mut blocks = bytes.chunks_exact(BLOCK);
        for block in &mut blocks {
            self.block(block);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
        self
    }

    /// The hash of everything mixed in.
    pub(crate) fn finish(self) -> u64 {
        let mut hash = self.hash;
        if !self.one_chain && self.total >= BLOCK as u64 {
            for lane in self.lanes {
                hash = Self::mix(hash, lane);
            }
        }
        for word in self.pending[..self.pending_len].chunks(8) {
            hash = Self::mix(hash, Self::word(word));
        }
        Self::mix(hash, self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::{Hasher, content_hash, line_hash};

    #[test]
    fn the_hash_is_the_same_whatever_the_pieces() {
        let bytes: Vec<u8> = (0..1_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = content_hash(&bytes);
        for split in [0, 1, 7, 8, 9, 31, 32, 33, 500, 999] {
            let pieces = Hasher::default()
                .update(&bytes[..split])
                .update(&bytes[split..])
                .finish();
            assert_eq!(pieces, whole, "split at {split}");
            let three = Hasher::default()
                .update(&bytes[..split / 2])
                .update(&bytes[split / 2..split])
                .update(&bytes[split..])
                .finish();
            assert_eq!(three, whole, "split at {} and {split}", split / 2);
        }
        assert_ne!(
            content_hash(b"a"),
            content_hash(b"a\0"),
            "the length counts"
        );
        assert_ne!(content_hash(b"abc"), content_hash(b"abd"));
    }

    /// One chain of eight-byte words, the last padded with zeros, then the length: the hash
    /// as it was before blocks.
    fn chain(bytes: &[u8]) -> u64 {
        let mix = |state: u64, word: u64| {
            (state.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
        };
        let mut hash = 0;
        for word in bytes.chunks(8) {
            let mut array = [0u8; 8];
            array[..word.len()].copy_from_slice(word);
            hash = mix(hash, u64::from_le_bytes(array));
        }
        mix(hash, bytes.len() as u64)
    }

    #[test]
    fn a_line_hashes_as_one_chain_whatever_its_length_so_anchors_never_change() {
        let line: Vec<u8> = (0..200u8).map(|i| b'a' + i % 26).collect();
        for len in 0..line.len() {
            assert_eq!(line_hash(&line[..len]), chain(&line[..len]), "{len} bytes");
            let pieces = Hasher::one_chain()
                .update(&line[..len / 3])
                .update(&line[len / 3..len])
                .finish();
            assert_eq!(pieces, chain(&line[..len]), "{len} bytes in two pieces");
        }
    }

    #[test]
    fn a_file_hash_is_one_chain_below_a_block_and_counts_every_block() {
        let line = b"    let x = frobnicate(y);";
        assert!(line.len() < 32);
        for len in 0..line.len() {
            assert_eq!(
                content_hash(&line[..len]),
                chain(&line[..len]),
                "{len} bytes"
            );
        }
        assert_ne!(
            content_hash(&[1; 64]),
            content_hash(&[[1; 32], [0; 32]].concat()),
            "every block counts"
        );
    }
}

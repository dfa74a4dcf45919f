//! The file tools: `read_file` (a file's numbered lines, a directory's listing, an image),
//! `write_file` (a whole file, atomically, in the format it had) and `list_dir` (a directory
//! as a sorted tree). They read and write through [`crate::fs`], the engine every family
//! shares, and `list_dir` walks with the search family's walker.

pub(crate) mod list_dir;
pub(crate) mod read_file;
pub(crate) mod write_file;

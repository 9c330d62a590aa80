//! A journal still being read while its start is on screen (issue 14): how far the reading got,
//! for the status line, and where the cursor is to go once the events it names have arrived.

use crate::session::journal_load::LoadId;

/// Progress of the rest of a journal, read off the UI thread and folded in batch by batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loading {
    /// The load reading it: its batches carry the same id.
    pub load: LoadId,
    /// Bytes read so far.
    pub read: u64,
    /// The file's size.
    pub total: u64,
    /// A cursor asked for beyond the events loaded so far (a re-opened episode goes back to
    /// where it was left): taken once they are all there, unless the cursor was moved meanwhile.
    pub resume_at: Option<(usize, usize)>,
}

impl Loading {
    pub fn new(read: u64, total: u64) -> Self {
        Loading { load: LoadId::default(), read, total, resume_at: None }
    }

    /// `loading 12.3 / 51.0 MiB` (KiB for a file under a mebibyte).
    pub fn label(&self) -> String {
        let (unit, size) = if self.total >= 1 << 20 { ("MiB", 1 << 20) } else { ("KiB", 1 << 10) };
        let of = |bytes: u64| bytes as f64 / f64::from(size);
        format!("loading {:.1} / {:.1} {unit}", of(self.read), of(self.total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_counts_mebibytes() {
        assert_eq!(Loading::new(12_897_485, 53_477_376).label(), "loading 12.3 / 51.0 MiB");
        assert_eq!(Loading::new(6_963, 20_787).label(), "loading 6.8 / 20.3 KiB");
    }
}

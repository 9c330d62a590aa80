//! How far the entries of a `.eval` may inflate (issue 36). A few kilobytes of zstd can stand for
//! gigabytes, so before an entry is read its size — which the ZIP declares and the reader holds it
//! to — is checked against a cap that scales with the file: [`FLOOR`] plus [`RATIO`] times the
//! file's size, and never more than the ceiling of what the entry is (a header, the summaries, a
//! sample with all its chunks). The limits are listed in docs/hostile-input.md.

use std::fmt;

/// What every log may inflate an entry to, however small the file.
pub const FLOOR: u64 = 32 << 20;
/// How many times its own size a log may inflate an entry to (Inspect's logs: 3–95× seen).
pub const RATIO: u64 = 128;

/// What an entry is, for its ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `header.json` or `_journal/start.json` (Inspect's are kilobytes; 5 MiB with a model's
    /// scripted outputs in its arguments).
    Header,
    /// `summaries.json`, or the journal's summaries together.
    Summaries,
    /// One sample, its chunks together.
    Sample,
}

impl Kind {
    pub fn ceiling(self) -> u64 {
        match self {
            Kind::Header => 64 << 20,
            Kind::Summaries => 512 << 20,
            Kind::Sample => 4 << 30,
        }
    }
}

/// What one read (a header, the summaries or a sample) has inflated so far.
#[derive(Debug)]
pub struct Budget {
    kind: Kind,
    file_len: u64,
    used: u64,
}

/// An entry over what its read may inflate.
#[derive(Debug)]
pub struct OverCap {
    /// What the read would inflate to with the entry (its entries so far and this one).
    pub size: u64,
    pub cap: u64,
    kind: Kind,
    file_len: u64,
}

impl Budget {
    pub fn new(kind: Kind, file_len: u64) -> Self {
        Budget { kind, file_len, used: 0 }
    }

    /// Counts an entry of `size` bytes inflated, or says why the read would be too large.
    pub fn take(&mut self, size: u64) -> Result<(), OverCap> {
        let (used, cap) = (self.used.saturating_add(size), cap(self.kind, self.file_len));
        if used > cap {
            return Err(OverCap { size: used, cap, kind: self.kind, file_len: self.file_len });
        }
        self.used = used;
        Ok(())
    }
}

/// The most a read of `kind` may inflate in a log of `file_len` bytes.
pub fn cap(kind: Kind, file_len: u64) -> u64 {
    FLOOR.saturating_add(RATIO.saturating_mul(file_len)).min(kind.ceiling())
}

impl fmt::Display for OverCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            Kind::Header => "a header",
            Kind::Summaries => "the summaries",
            Kind::Sample => "a sample",
        };
        write!(
            f,
            "would inflate to {}, past the {} {what} of this log may inflate to ({} + {}× the log's {}, at most {}): \
             refused as an inflation bomb",
            size(self.size),
            size(self.cap),
            size(FLOOR),
            RATIO,
            size(self.file_len),
            size(self.kind.ceiling())
        )
    }
}

/// A byte count for a person: `3.5 GiB`, `120 KiB`.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} bytes"),
        _ if value < 10.0 => format!("{value:.1} {}", UNITS[unit]),
        _ => format!("{value:.0} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_scales_with_the_file_up_to_the_ceiling() {
        assert_eq!(cap(Kind::Sample, 0), FLOOR);
        assert_eq!(cap(Kind::Sample, 1 << 20), FLOOR + (128 << 20));
        assert_eq!(cap(Kind::Sample, 1 << 30), 4 << 30);
        assert_eq!(cap(Kind::Header, 1 << 20), 64 << 20);
        let mut budget = Budget::new(Kind::Sample, 0);
        assert!(budget.take(FLOOR - 1).is_ok());
        let over = budget.take(2).unwrap_err();
        assert_eq!(over.cap, FLOOR);
        assert_eq!(
            over.to_string(),
            "would inflate to 32 MiB, past the 32 MiB a sample of this log may inflate to (32 MiB + 128× the \
             log's 0 bytes, at most 4.0 GiB): refused as an inflation bomb"
        );
    }
}

//! Hand-made `.eval` archives for the hostile-input tests: a ZIP written byte by byte, its entries
//! stored or zstd, the zstd made of raw blocks and run-length blocks, so a test writes gigabytes
//! of inflated text in kilobytes without compressing anything (a run of 128 KiB costs 4 bytes).

/// What an entry inflates to, piece by piece.
pub enum Part<'a> {
    /// These bytes.
    Text(&'a [u8]),
    /// This byte, this many times.
    Repeat(u8, u64),
}

/// One entry of the archive.
pub struct Entry {
    name: String,
    method: u16,
    data: Vec<u8>,
    crc: u32,
    size: u64,
}

/// The largest block zstd allows (and the window of the frames written here).
const BLOCK: u64 = 128 << 10;
/// Past this size an entry's checksum is not computed: a reader stopping at its cap never
/// reaches the end, where the checksum is checked.
const CHECKSUMMED_UP_TO: u64 = 256 << 20;

/// An entry holding `bytes` as they are (method 0).
pub fn stored(name: &str, bytes: &[u8]) -> Entry {
    Entry {
        name: name.into(),
        method: 0,
        data: bytes.to_vec(),
        crc: crc(&[Part::Text(bytes)]),
        size: bytes.len() as u64,
    }
}

/// An entry compressed with zstd (method 93, as Inspect writes), inflating to `parts`.
pub fn zstd(name: &str, parts: &[Part]) -> Entry {
    let size = parts.iter().map(|p| match p {
        Part::Text(bytes) => bytes.len() as u64,
        Part::Repeat(_, n) => *n,
    });
    let size = size.sum();
    let crc = if size <= CHECKSUMMED_UP_TO { crc(parts) } else { 0 };
    Entry { name: name.into(), method: 93, data: zstd_frame(parts), crc, size }
}

impl Entry {
    /// The entry declaring it inflates to `size` bytes (a lie, if it is not its size).
    pub fn declaring(mut self, size: u64) -> Entry {
        self.size = size;
        self
    }
}

fn crc(parts: &[Part]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for part in parts {
        match part {
            Part::Text(bytes) => hasher.update(bytes),
            Part::Repeat(byte, n) => {
                let run = vec![*byte; BLOCK as usize];
                let mut left = *n;
                while left > 0 {
                    let take = left.min(BLOCK);
                    hasher.update(&run[..take as usize]);
                    left -= take;
                }
            }
        }
    }
    hasher.finalize()
}

/// One zstd frame of raw and run-length blocks (RFC 8878 §3.1.1): no content size, no checksum.
fn zstd_frame(parts: &[Part]) -> Vec<u8> {
    // Magic, a frame header without content size, a 128 KiB window (2^(10+7)).
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3];
    let mut blocks: Vec<(u32, u32, Vec<u8>)> = Vec::new();
    for part in parts {
        match part {
            Part::Text(bytes) => {
                for chunk in bytes.chunks(BLOCK as usize) {
                    blocks.push((0, chunk.len() as u32, chunk.to_vec()));
                }
            }
            Part::Repeat(byte, n) => {
                let mut left = *n;
                while left > 0 {
                    let take = left.min(BLOCK);
                    blocks.push((1, take as u32, vec![*byte]));
                    left -= take;
                }
            }
        }
    }
    if blocks.is_empty() {
        blocks.push((0, 0, Vec::new()));
    }
    let last = blocks.len() - 1;
    for (i, (kind, size, content)) in blocks.into_iter().enumerate() {
        let header = u32::from(i == last) | (kind << 1) | (size << 3);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.extend_from_slice(&content);
    }
    frame
}

/// The archive of `entries`, in order.
pub fn zip(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let offset = out.len() as u32;
        let size = u32::try_from(entry.size).expect("an entry under 4 GiB (no ZIP64 here)");
        let common = |to: &mut Vec<u8>| {
            to.extend_from_slice(&63u16.to_le_bytes()); // version needed
            to.extend_from_slice(&0u16.to_le_bytes()); // flags
            to.extend_from_slice(&entry.method.to_le_bytes());
            to.extend_from_slice(&[0, 0, 0x21, 0]); // time, date (1980-01-01)
            to.extend_from_slice(&entry.crc.to_le_bytes());
            to.extend_from_slice(&(entry.data.len() as u32).to_le_bytes());
            to.extend_from_slice(&size.to_le_bytes());
            to.extend_from_slice(&(entry.name.len() as u16).to_le_bytes());
            to.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(entry.name.as_bytes());
        out.extend_from_slice(&entry.data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&63u16.to_le_bytes()); // made by
        common(&mut central);
        central.extend_from_slice(&[0; 8]); // comment length, disk, internal and external attributes
        central.extend_from_slice(&[0; 2]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(entry.name.as_bytes());
    }
    let (at, len, count) = (out.len() as u32, central.len() as u32, entries.len() as u16);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

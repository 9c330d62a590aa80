//! The client's stream path without the network, for the fuzz targets in `fuzz/`
//! (built only with the `fuzzing` feature).

use super::sse::SseParser;
use super::stream::{Assembler, Step};
use super::{ChatResponse, Delta};

/// What a streamed body yields when it arrives cut at `cuts` (byte offsets, taken
/// modulo the length): the deltas in order and the reply, or the client's error.
/// The answer must not depend on where the cuts fall.
pub fn assemble_stream(body: &[u8], cuts: &[usize]) -> Result<(Vec<Delta>, ChatResponse), String> {
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    bounds.push(body.len());
    bounds.sort_unstable();
    let mut parser = SseParser::default();
    let mut assembler = Assembler::default();
    let mut deltas = Vec::new();
    let mut start = 0;
    for end in bounds {
        for event in parser.push(&body[start..end])? {
            match assembler.event(&event)? {
                Step::Done => return Ok((deltas, assembler.finish())),
                Step::Deltas(more) => deltas.extend(more),
            }
        }
        start = end;
    }
    if let Some(event) = parser.finish()
        && let Step::Deltas(more) = assembler.event(&event)?
    {
        deltas.extend(more);
    }
    Ok((deltas, assembler.finish()))
}

//! The words an annotation quotes: its character span of the target event's
//! text, for exports, `dump` and `notes export` (and the screen's highlight).

use std::path::Path;

use crate::core::episode::Episode;
use crate::core::export::AnnotationView;
use crate::core::text::char_slice;

use super::file::{NotesFile, notes_path};
use super::record::{Annotation, Span};

/// The quoted words, or `None` without a span, or when the event or span is not there.
pub fn quoted_text(episode: &Episode, target_seq: u64, span: Option<Span>) -> Option<String> {
    let span = span.filter(|s| s.start < s.end)?;
    let event = &episode.events[episode.position_of(target_seq)?];
    let text = event.body.text()?;
    let quoted = char_slice(text, span.start, span.end);
    (quoted.chars().count() == span.end - span.start).then(|| quoted.to_string())
}

/// The annotations in effect on `episode`, from the notes file beside the file
/// it was loaded from, as the exporters show them (with their quotes). A
/// notes file that cannot be read gives none, with a warning in the log.
pub fn annotation_views(episode: &Episode) -> Vec<AnnotationView> {
    let mut views = from_notes_file(episode);
    views.extend(episode.carried_notes.iter().map(|n| AnnotationView {
        target_seq: n.target_seq,
        label: n.label.clone(),
        note: n.note.clone(),
        author: n.author.clone(),
        quote: n.quote.clone(),
        judged: super::verdict::carried_judgement(n),
    }));
    views
}

fn from_notes_file(episode: &Episode) -> Vec<AnnotationView> {
    let path = notes_path(Path::new(&episode.origin));
    if !path.is_file() {
        return Vec::new();
    }
    let notes = match NotesFile::open(&path) {
        Ok(notes) => notes,
        Err(e) => {
            tracing::warn!("{e}");
            return Vec::new();
        }
    };
    notes
        .for_episode(episode.id())
        .map(|a| AnnotationView {
            target_seq: a.target_seq,
            label: a.label.as_str().to_string(),
            note: a.note.clone(),
            author: Some(a.author.clone()).filter(|who| !who.is_empty()),
            quote: quote_of(episode, a),
            judged: super::verdict::judged_by(a.label),
        })
        .collect()
}

/// [`quoted_text`] of an annotation, when it is about this episode.
pub fn quote_of(episode: &Episode, a: &Annotation) -> Option<String> {
    (a.episode == episode.id()).then(|| quoted_text(episode, a.target_seq, a.span)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::*;

    #[test]
    fn a_span_quotes_characters_of_its_event_and_nothing_outside() {
        let header = EpisodeHeader::new("e", TaskInfo::default(), EpisodeConfig::default());
        let message = Message::new(1, Party::Assistant, Party::Attacker, "Café Hollybrook Clinic");
        let bodies = [EventBody::Episode(Box::new(header)), EventBody::Message(message)];
        let episode = Episode::new(stamp_events(bodies, "t"), "x");
        let span = |start, end| Some(Span { start, end });
        assert_eq!(quoted_text(&episode, 1, span(5, 15)).as_deref(), Some("Hollybrook"));
        assert_eq!(quoted_text(&episode, 1, span(0, 4)).as_deref(), Some("Café"));
        assert_eq!(quoted_text(&episode, 1, None), None);
        assert_eq!(quoted_text(&episode, 1, span(20, 40)), None, "past the end");
        assert_eq!(quoted_text(&episode, 0, span(0, 2)), None, "the header has no text");
        assert_eq!(quoted_text(&episode, 7, span(0, 2)), None, "no such event");
    }
}

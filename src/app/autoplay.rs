//! Autoplay: reveals events one by one at a pace a person can read.

use std::time::Duration;

use crate::core::episode::EventBody;

pub const SPEEDS: [f64; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
const NORMAL: usize = 2;

#[derive(Debug, Clone, PartialEq)]
pub struct Autoplay {
    pub playing: bool,
    pub speed: usize,
    waited: Duration,
}

impl Default for Autoplay {
    fn default() -> Self {
        Autoplay { playing: false, speed: NORMAL, waited: Duration::ZERO }
    }
}

impl Autoplay {
    pub fn factor(&self) -> f64 {
        SPEEDS[self.speed]
    }

    pub fn faster(&mut self) {
        self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
    }

    pub fn slower(&mut self) {
        self.speed = self.speed.saturating_sub(1);
    }

    pub fn toggle(&mut self) {
        self.playing = !self.playing;
        self.waited = Duration::ZERO;
    }

    /// Adds `dt`; true when the next event (`next`) is due.
    pub fn tick(&mut self, dt: Duration, next: &EventBody) -> bool {
        if !self.playing {
            return false;
        }
        self.waited += dt;
        let due = reading_time(next).div_f64(self.factor());
        if self.waited >= due {
            self.waited = Duration::ZERO;
            return true;
        }
        false
    }
}

/// Time to read an event at normal speed: a base beat plus time for its text.
fn reading_time(body: &EventBody) -> Duration {
    let chars = match body {
        EventBody::Message(m) => m.text.chars().count(),
        EventBody::ToolResult(r) => r.output.chars().count(),
        _ => 0,
    };
    Duration::from_millis(700 + (chars as u64 * 1000 / 150).min(4_000))
}

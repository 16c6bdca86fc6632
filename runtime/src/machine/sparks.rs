//! The spark pool: `par` records a spark; an idle PE turns the oldest
//! into a thread (or gives it away, see `parallel::gum`).

use crate::machine::heap::{kind, Ptr};
use crate::machine::pe::Pe;
use crate::obs::event::Event;

impl Pe<'_, '_> {
    /// Records a spark for `p` unless it is a value (or under evaluation).
    pub fn spark(&mut self, p: Ptr) {
        let p = self.heap.deref(p);
        if !sparkable(self.heap.kind(p)) {
            self.obs.emit(Event::SparkDud);
            return;
        }
        if self.sparks.len() >= self.tuning.spark_pool {
            self.obs.emit(Event::SparkOverflow);
            return;
        }
        self.obs.emit(Event::SparkCreate);
        self.sparks.push_back(p);
    }

    /// Turns the oldest spark that is still a thunk into a thread.
    pub(crate) fn convert_spark(&mut self) -> bool {
        if self.live_threads >= self.tuning.thread_limit {
            return false;
        }
        while let Some(s) = self.sparks.pop_front() {
            let s = self.heap.deref(s);
            if !sparkable(self.heap.kind(s)) {
                self.obs.emit(Event::SparkFizzle);
                continue;
            }
            self.obs.emit(Event::SparkRun);
            self.spawn(self.l.spark_entry, &[s]);
            return true;
        }
        false
    }
}

/// Whether a spark for a node of this kind is worth keeping: it is
/// unevaluated and not under evaluation (here or elsewhere).
fn sparkable(k: u8) -> bool {
    matches!(k, kind::THUNK | kind::STR)
}

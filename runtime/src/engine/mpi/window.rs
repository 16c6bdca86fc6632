//! Flow control between two ranks (`link`): how many envelopes, and how
//! many bytes, may travel to a rank before it says it took them in.
//!
//! Open MPI's shared-memory transport collapses when one rank floods
//! another with unmatched small sends (100,000 of 16 bytes in one burst
//! took 8-25 s, against under a second with at most 4,096 in flight: the
//! issue's measurement, rsmpi 0.8, Open MPI 4.1). So at most [`WINDOW`]
//! envelopes, and about [`WINDOW_BYTES`], travel unacknowledged to each
//! rank; the rest wait, in order, and leave as the receiver tells that it
//! took some in, a quarter of either window at a time ([`Flight::due`]).
//! Kept apart from MPI so that the rules are tested in every build.

/// Envelopes in flight to one rank, unacknowledged.
pub(crate) const WINDOW: usize = 1024;

/// Bytes (payloads and piggybacks) in flight to one rank: a stream of
/// large messages is paced by its receiver, not by what MPI will buffer.
/// Over TCP many large sends under way at once slow each other: a stream
/// of 256 KiB messages ran at 14 % of raw MPI with 4 MiB in flight, 72 %
/// with 512 KiB (the same on shared memory).
pub(crate) const WINDOW_BYTES: usize = 512 << 10;

/// What is in flight to a rank, or taken in from it since the last
/// acknowledgement.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Flight {
    pub envelopes: usize,
    pub bytes: usize,
}

impl Flight {
    /// Whether an envelope of `size` bytes may leave with this in flight.
    ///
    /// What is in flight below both quarters of the windows may never be
    /// acknowledged ([`Flight::due`]): the sender must not wait then. When
    /// it did (a 1-byte envelope in flight, a 1 MiB one waiting for room),
    /// both ranks waited for ever. (Eight envelopes of any size allowed
    /// in flight streamed 256 KiB ones at 0.14-0.45 of raw MPI's rate,
    /// against 0.24-0.27 with this window: no better, and less steady.)
    pub fn may_send(self, size: usize) -> bool {
        self.envelopes < WINDOW && (self.bytes + size <= WINDOW_BYTES || !self.due())
    }

    /// The receiver's side: whether what it took in since its last
    /// acknowledgement is due to be acknowledged.
    pub fn due(self) -> bool {
        self.envelopes >= WINDOW / 4 || self.bytes >= WINDOW_BYTES / 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sender and a receiver with acknowledgements in transit: whatever
    /// the sizes, everything sent arrives (the window never waits for an
    /// acknowledgement that will not come).
    #[test]
    fn the_window_never_waits_for_ever() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..200 {
            let n = 1 + next(300) as usize;
            let sizes: Vec<usize> = (0..n)
                .map(|_| match next(4) {
                    0 => 1 + next(64) as usize,
                    1 => 1 + next(8192) as usize,
                    2 => 1 + next(300 << 10) as usize,
                    _ => 1 + next(2 << 20) as usize,
                })
                .collect();
            let (mut flight, mut taken) = (Flight::default(), Flight::default());
            let (mut queued, mut wire, mut acks) = (sizes.into_iter(), Vec::new(), Vec::new());
            let mut waiting = queued.next();
            let mut arrived = 0;
            loop {
                // The sender takes in acknowledgements and sends what may go.
                for (k, b) in acks.drain(..) {
                    flight.envelopes -= k;
                    flight.bytes -= b;
                }
                while let Some(size) = waiting.filter(|&s| flight.may_send(s)) {
                    flight.envelopes += 1;
                    flight.bytes += size;
                    wire.push(size);
                    waiting = queued.next();
                }
                if wire.is_empty() && acks.is_empty() {
                    break;
                }
                // The receiver takes in everything and acknowledges by quarters.
                for size in wire.drain(..) {
                    arrived += 1;
                    taken.envelopes += 1;
                    taken.bytes += size;
                    if taken.due() {
                        acks.push((taken.envelopes, taken.bytes));
                        taken = Flight::default();
                    }
                }
            }
            assert!(waiting.is_none(), "an envelope waits for ever");
            assert_eq!(arrived, n);
        }
    }
}

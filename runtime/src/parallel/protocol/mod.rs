//! How messages travel between PEs and reach their protocol.
//!
//! Every message is an [`envelope::Envelope`] whose payload starts with a
//! kind ([`MsgKind`], the same numbering for every protocol) followed by the
//! message's fields, numbers in LEB128 and packed graphs in their dense
//! form (`codec`). `dispatch` is the one
//! place that knows every kind: it hands each message to its protocol:
//!
//! | protocol | kinds | where |
//! | --- | --- | --- |
//! | control | FINISH, FAIL, PESTATIC | `control` |
//! | GUM | FISH, SCHEDULE, FETCH, RESUME, ACK, FREE | `parallel::gum` |
//! | Eden | CREATE, SPLIT, HEAD, VALUE, TERMINATE, CREDIT | `parallel::eden` |
//! | transport | PACKET | `packet`: under the others, taken apart before dispatch |
//!
//! Messages leave a PE through its send buffers (`packet`): every kind but
//! HEAD is urgent and leaves at once, alone or with the HEADs held for the
//! same PE.

pub mod codec;
pub mod control;
pub mod dispatch;
pub mod envelope;
pub mod packet;

#[cfg(test)]
mod fuzz;

use crate::machine::pe::Stop;

/// Which protocol a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The run as a whole: its end, an error.
    Control,
    /// GpH on many PEs: work stealing, fetching remote data, weights.
    Gum,
    /// Eden's processes and channels (docs/eden.md).
    Eden,
    /// Several messages for one PE travelling together (`packet`).
    Transport,
}

/// Message kinds: the first word of every message.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum MsgKind {
    Fish,
    Schedule,
    Fetch,
    Resume,
    Ack,
    Free,
    Finish,
    Fail,
    /// Eden: make a child process (its function, its channels).
    Create,
    /// Eden: the value on a channel is a tuple; a channel per component.
    Split,
    /// Eden: one element of a stream.
    Head,
    /// Eden: a channel's (last) value.
    Value,
    /// Eden: the receiver dropped the channel; its sender stops.
    Terminate,
    /// The packet layer: several messages in one envelope.
    Packet,
    /// Eden: the receiver took in this many more elements of a stream; its
    /// sender may run that much further ahead (the stream window).
    Credit,
    /// Grid-GUM2: a PE's speed, told to every other at start-up.
    PeStatic,
}

impl MsgKind {
    pub const ALL: [MsgKind; 16] = [
        MsgKind::Fish,
        MsgKind::Schedule,
        MsgKind::Fetch,
        MsgKind::Resume,
        MsgKind::Ack,
        MsgKind::Free,
        MsgKind::Finish,
        MsgKind::Fail,
        MsgKind::Create,
        MsgKind::Split,
        MsgKind::Head,
        MsgKind::Value,
        MsgKind::Terminate,
        MsgKind::Packet,
        MsgKind::Credit,
        MsgKind::PeStatic,
    ];

    pub fn protocol(self) -> Protocol {
        match self {
            MsgKind::Fish
            | MsgKind::Schedule
            | MsgKind::Fetch
            | MsgKind::Resume
            | MsgKind::Ack
            | MsgKind::Free => Protocol::Gum,
            MsgKind::Finish | MsgKind::Fail | MsgKind::PeStatic => Protocol::Control,
            MsgKind::Create
            | MsgKind::Split
            | MsgKind::Head
            | MsgKind::Value
            | MsgKind::Terminate
            | MsgKind::Credit => Protocol::Eden,
            MsgKind::Packet => Protocol::Transport,
        }
    }

    /// Whether a message of this kind leaves at once, with whatever its
    /// send buffer holds (`packet`). Only a stream element waits for
    /// company: holding anything else back would slow the run down, and a
    /// VALUE is the last message of its channel (the paper, section 3.2).
    pub fn urgent(self) -> bool {
        self != MsgKind::Head
    }

    /// Whether messages of this kind only look for work: a quiescent PE
    /// has none to give, so they alone do not keep a run alive (the
    /// driver's deadlock test, engine/mod.rs).
    pub fn looks_for_work(self) -> bool {
        self == MsgKind::Fish
    }

    pub fn name(self) -> &'static str {
        match self {
            MsgKind::Fish => "FISH",
            MsgKind::Schedule => "SCHEDULE",
            MsgKind::Fetch => "FETCH",
            MsgKind::Resume => "RESUME",
            MsgKind::Ack => "ACK",
            MsgKind::Free => "FREE",
            MsgKind::Finish => "FINISH",
            MsgKind::Fail => "FAIL",
            MsgKind::Create => "CREATE",
            MsgKind::Split => "SPLIT",
            MsgKind::Head => "HEAD",
            MsgKind::Value => "VALUE",
            MsgKind::Terminate => "TERMINATE",
            MsgKind::Packet => "PACKET",
            MsgKind::Credit => "CREDIT",
            MsgKind::PeStatic => "PESTATIC",
        }
    }
}

/// A message that cannot arise between PEs of this machine.
pub(crate) fn internal(e: impl std::fmt::Display) -> Stop {
    Stop::Error(format!("internal error: {e}"))
}

//! The cluster's simulated clock: time as an input of the core, never the machine's.
//!
//! The clock counts microseconds from [`EPOCH_MS`] (2025-01-01T00:00:00Z, the date every
//! session's `new Date()` has always read at its start). It moves only when a command's
//! work is charged to it (`Cluster::finish_statement`, see the cost model below) or when a script waits (`sleep(ms)`); the same commands therefore
//! always reach the same time, natively, in wasm and on replay.
//!
//! **The cost model** (deliberately simple, and small next to the balancer's intervals,
//! so that a lesson's few dozen commands never reach a background round: see
//! ARCHITECTURE.md, "The simulated clock"):
//! - every statement costs [`STATEMENT_US`] (1 ms, a round trip to mongos);
//! - every document written (inserted, or rewritten by an update, as the write budget
//!   counts them) costs [`WRITE_US`] (50 µs: 20,000 small documents a second);
//! - every document a cursor returns costs [`READ_US`] (10 µs).
//!
//! **The balancer's schedule** follows `Balancer::_mainThread` in MongoDB's
//! `src/mongo/db/s/balancer/balancer.cpp`, the same in 3.6, 5.0 and 8.0: after a round that
//! moved chunks the next one comes [`SHORT_ROUND_INTERVAL_MS`] later
//! (`kShortBalanceRoundInterval`, 1 s in 3.6 and 5.0; 8.0 throttles to
//! `balancerMigrationsThrottlingMs`, 1,000 ms by default, since the last migration); after
//! a round that found nothing, or while the balancer is off, [`ROUND_INTERVAL_MS`]
//! (`kBalanceRoundDefaultInterval`, 10 s). Every pass of the loop counts in
//! `numBalancerRounds` (`_endRound` increments it, a skipped round included).

/// The time every cluster starts at, in milliseconds since the Unix epoch
/// (2025-01-01T00:00:00Z).
pub const EPOCH_MS: i64 = 1_735_689_600_000;

/// What one statement costs, in microseconds.
pub const STATEMENT_US: i64 = 1_000;

/// What writing one document costs, in microseconds.
pub const WRITE_US: i64 = 50;

/// What returning one document from a cursor costs, in microseconds.
pub const READ_US: i64 = 10;

/// The balancer's sleep after a round that found nothing to move, or while it is off
/// (`kBalanceRoundDefaultInterval`).
pub const ROUND_INTERVAL_MS: i64 = 10_000;

/// The balancer's sleep after a round that moved chunks (`kShortBalanceRoundInterval`).
pub const SHORT_ROUND_INTERVAL_MS: i64 = 1_000;

/// The most rounds that move chunks one advance of the clock takes. A long `sleep` over a
/// badly unbalanced cluster stops there, and the rounds it left are due at once: the next
/// advance of the clock takes them. (Rounds that find nothing are counted, not run: see
/// `Cluster::advance_clock`.)
pub const MAX_ROUNDS_PER_ADVANCE: u32 = 1_000;

/// The AutoMerger's place in its loop (7.0+, `AutoMergerPolicy`): see
/// `engine/auto_merger.rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MergerState {
    /// When its interval timer was last reset (its current round began), in microseconds
    /// since [`EPOCH_MS`]; `None` while it is disabled.
    pub(crate) round_start_us: Option<i64>,
    /// Whether the round has yet to find its work (`_firstAction`).
    pub(crate) fresh: bool,
    /// The namespaces still to merge on each shard this pass, shards in name order and
    /// each shard's namespaces taken from the back (`_collectionsToMergePerShard`).
    pub(crate) queue: Vec<(String, Vec<String>)>,
    /// The pairs that merged something, taken again once the pass is through
    /// (`_rescheduledCollectionsToMergePerShard`).
    pub(crate) rescheduled: Vec<(String, Vec<String>)>,
    /// When its next shard is due (after `autoMergerThrottlingMS`), in microseconds since
    /// [`EPOCH_MS`]; `None` once the round has drained.
    pub(crate) next_visit_us: Option<i64>,
}

impl Default for MergerState {
    /// Enabled at the epoch with the balancer's idle round there (in every mode: the
    /// balancer's first round disables it where there is no AutoMerger), its round
    /// drained: the cluster had nothing to merge.
    fn default() -> Self {
        MergerState {
            round_start_us: Some(0),
            fresh: false,
            queue: Vec::new(),
            rescheduled: Vec::new(),
            next_visit_us: None,
        }
    }
}

/// The clock and the balancer's place in its loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimClock {
    /// Microseconds since [`EPOCH_MS`].
    pub(crate) now_us: i64,
    /// When the balancer's next round is due, in microseconds since [`EPOCH_MS`].
    pub(crate) next_round_us: i64,
    /// Rounds ended so far (`numBalancerRounds`).
    pub(crate) rounds: u64,
    /// The documents written that statements have already been charged for.
    pub(crate) docs_charged: u64,
    /// The AutoMerger beside the balancer.
    pub(crate) merger: MergerState,
}

impl Default for SimClock {
    /// A clock at the epoch, as if the balancer had just ended an idle round there: its
    /// first round comes one idle interval later (not counted: the cluster is new).
    fn default() -> Self {
        SimClock {
            now_us: 0,
            next_round_us: ROUND_INTERVAL_MS * 1_000,
            rounds: 0,
            docs_charged: 0,
            merger: MergerState::default(),
        }
    }
}

/// The latest time the clock reaches, in microseconds since [`EPOCH_MS`]: about 146,000
/// years, far past any script, and half of `i64`'s range, so that the balancer's
/// schedule can always be worked out past it without overflowing.
pub(crate) const END_US: i64 = i64::MAX / 2;

impl SimClock {
    /// Milliseconds since the Unix epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        to_ms(self.now_us)
    }
}

/// A time of the clock (microseconds since [`EPOCH_MS`]) in milliseconds since the Unix
/// epoch.
pub(crate) fn to_ms(us: i64) -> i64 {
    EPOCH_MS.saturating_add(us.div_euclid(1_000))
}

//! What runs in the background while simulated time passes: the balancer's rounds and,
//! beside them, the AutoMerger's (`engine/auto_merger.rs`), within the balancing window
//! of `config.settings`' `balancer` document (`engine/balancer_settings.rs`).
//!
//! Nothing here reads the machine's clock. Time passes when a statement is charged for its
//! work ([`Cluster::finish_statement`]) or when a script waits ([`Cluster::advance_clock`],
//! behind `sleep(ms)`); every balancer round that falls due in between is taken then, at
//! its own time, so its migrations are logged when they happened. The schedule and the
//! cost model are described in [`crate::engine::clock`].

use crate::engine::auto_merger::MAX_MERGE_VISITS_PER_ADVANCE;
use crate::engine::balancer_settings::{self, DAY_S};
use crate::engine::clock::{
    to_ms, END_US, MAX_ROUNDS_PER_ADVANCE, READ_US, ROUND_INTERVAL_MS, SHORT_ROUND_INTERVAL_MS,
    STATEMENT_US, WRITE_US,
};
use crate::engine::cluster::Cluster;
use crate::engine::events::EventKind;
use bson::Document;

/// What the background did while the clock advanced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Background {
    /// Balancer rounds ended (idle and skipped ones included, as `numBalancerRounds`
    /// counts them).
    pub rounds: u64,
    /// Chunks the balancer moved.
    pub migrations: u64,
    /// Chunks the AutoMerger merged (8.0 mode).
    pub merged_chunks: u64,
}

impl Cluster {
    /// The simulated time, in milliseconds since the Unix epoch. The one clock of the
    /// session: `new Date()`, `Date.now()` and the event log read it.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// When the balancer's next round is due, in milliseconds since the Unix epoch.
    pub fn next_balancer_round_ms(&self) -> i64 {
        to_ms(self.clock.next_round_us)
    }

    /// The balancer rounds ended so far: `balancerStatus`'s `numBalancerRounds`.
    pub fn balancer_rounds(&self) -> u64 {
        self.clock.rounds
    }

    /// Counts a round run on demand (`sim.balance()`): it does not move the schedule of
    /// the background rounds.
    pub fn note_manual_round(&mut self) {
        self.clock.rounds += 1;
    }

    /// Charges the statement that just ran: the fixed cost, the documents written since
    /// the last charge and the `read` documents its cursor returned, then lets the
    /// background run over that time: [`STATEMENT_US`], plus [`WRITE_US`] a document
    /// written, plus [`READ_US`] a document read.
    pub fn finish_statement(&mut self, read: u64) -> Background {
        let written = self.written.docs.saturating_sub(self.clock.docs_charged);
        self.clock.docs_charged = self.written.docs;
        let cost = STATEMENT_US
            .saturating_add(cost_of(written, WRITE_US))
            .saturating_add(cost_of(read, READ_US));
        self.advance_us(cost)
    }

    /// Lets `ms` milliseconds pass (negative counts as zero), taking every balancer round
    /// due in that time (at most [`MAX_ROUNDS_PER_ADVANCE`] that move chunks).
    pub fn advance_clock(&mut self, ms: i64) -> Background {
        self.advance_us(ms.max(0).saturating_mul(1_000))
    }

    fn advance_us(&mut self, us: i64) -> Background {
        let target = self.clock.now_us.saturating_add(us.max(0)).min(END_US);
        let mut done = Background::default();
        let mut active = 0;
        let mut visits = 0;
        let mut rounds_capped = false;
        loop {
            let round = Some(self.clock.next_round_us).filter(|r| *r <= target && !rounds_capped);
            let visit = self
                .clock
                .merger
                .next_visit_us
                .filter(|v| *v <= target && visits < MAX_MERGE_VISITS_PER_ADVANCE);
            match (round, visit) {
                (None, None) => break,
                // The earlier of the two; at the same time the balancer's round first, as
                // its round is what starts the AutoMerger's.
                (Some(r), Some(v)) if v < r => self.visit_at(v, &mut visits, &mut done),
                (None, Some(v)) => self.visit_at(v, &mut visits, &mut done),
                (Some(_), _) if active == MAX_ROUNDS_PER_ADVANCE => {
                    // The rest waits for the next advance, due at once.
                    self.clock.next_round_us = target;
                    rounds_capped = true;
                }
                (Some(_), _) => {
                    if self.background_round(target, &mut done) {
                        active += 1;
                    }
                }
            }
        }
        self.clock.now_us = target.max(self.clock.now_us);
        done
    }

    /// The AutoMerger's visit due at `v`. Past [`MAX_MERGE_VISITS_PER_ADVANCE`] in one
    /// advance the rest stay due, and the next advance takes them at once.
    fn visit_at(&mut self, v: i64, visits: &mut u32, done: &mut Background) {
        self.clock.now_us = v.max(self.clock.now_us);
        done.merged_chunks += self.merger_visit();
        *visits += 1;
    }

    /// The balancer's round due now (at `next_round_us`): the AutoMerger's turn in it,
    /// its migrations, and when the next is due. Returns whether it moved anything (a
    /// round that did waits only 1 s). Idle rounds still due before `target` are counted,
    /// not run, up to the one that would start the AutoMerger's next round.
    fn background_round(&mut self, target: i64, done: &mut Background) -> bool {
        // The round happens at its own time, so its events carry it.
        self.clock.now_us = self.clock.next_round_us.max(self.clock.now_us);
        self.merger_on_balancer_round();
        let before = self.events.len();
        let moved = if self.balancer_may_balance() {
            self.balance_round().len() as u64
        } else {
            0
        };
        done.rounds += 1;
        done.migrations += moved;
        self.clock.rounds += 1;
        // A chunk too big to move counts as processed (`_moveChunks`), like a move.
        let processed = moved > 0
            || self
                .events
                .since(before)
                .any(|e| matches!(e.kind, EventKind::Jumbo { .. }));
        let idle = ROUND_INTERVAL_MS * 1_000;
        if processed {
            self.clock.next_round_us = self.clock.now_us + SHORT_ROUND_INTERVAL_MS * 1_000;
            return true;
        }
        if self.events.len() > before {
            // Splits at zone boundaries only: the next round runs for real.
            self.clock.next_round_us = self.clock.now_us + idle;
            return false;
        }
        // Nothing changed, and nothing will until the next command: every round still
        // due in this advance would find the same, so count them, don't run them; but
        // run the one that starts the AutoMerger's next round, and while its round is
        // under way the one after its next shard, which sees whether it has drained.
        let next = self.clock.now_us.saturating_add(idle);
        let mut skipped = if next <= target {
            (target - next) / idle + 1
        } else {
            0
        };
        let merger = self
            .merger_round_due_us()
            .or(self.clock.merger.next_visit_us);
        if let Some(due) = merger {
            let until_due = (due.saturating_sub(next) + idle - 1)
                .div_euclid(idle)
                .max(0);
            skipped = skipped.min(until_due);
        }
        // Nor past the balancing window's opening or closing, which changes what a
        // round does.
        if let Some(until_edge) = self.idle_rounds_before_window_edge(next) {
            skipped = skipped.min(until_edge);
        }
        done.rounds += skipped as u64;
        self.clock.rounds += skipped as u64;
        self.clock.next_round_us = next.saturating_add(skipped.saturating_mul(idle));
        false
    }

    /// The chunk migrations committed after `after_ms` (milliseconds since the Unix
    /// epoch): `sh.status()`'s "Migration Results for the last 24 hours" counts those of
    /// the last day. The log is in time order, so this reads back only as far as needed.
    pub fn migrations_after(&self, after_ms: i64) -> u64 {
        self.events
            .iter()
            .rev()
            .take_while(|e| e.at_ms > after_ms)
            .filter(|e| matches!(e.kind, EventKind::MoveChunkCommit { .. }))
            .count() as u64
    }
}

/// `n` items at `each` microseconds apiece, saturating.
fn cost_of(n: u64, each: i64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX).saturating_mul(each)
}

/// The `balancer` document of `config.settings` and what the balancer's loop takes from it
/// (`balancer_settings.rs`).
impl Cluster {
    /// Replaces `config.settings`' `balancer` document (`None` deletes it) and refreshes
    /// the balancer from it as its next round would.
    pub fn write_balancer_setting(&mut self, doc: Option<Document>) {
        let parsed = match &doc {
            None => Some((true, None)),
            Some(d) => balancer_settings::parse(d),
        };
        match parsed {
            Some((on, window)) => {
                self.balancer_enabled = on;
                self.balancer_refresh = balancer_settings::BalancerRefresh {
                    window,
                    refused: false,
                };
            }
            None => self.balancer_refresh.refused = true,
        }
        self.balancer_setting = doc;
        // Before 6.0.3 each auto-split refreshes the same settings first.
        self.refresh_autosplit();
    }

    /// `balancerStart` and `balancerStop` (`BalancerConfiguration::setBalancerMode`): an
    /// upsert of `{$set: {stopped, mode}}` into the `balancer` document, which keeps
    /// whatever else an administrator wrote there (its window).
    pub fn set_balancer_mode(&mut self, on: bool) {
        let set =
            bson::doc! { "$set": { "stopped": !on, "mode": if on { "full" } else { "off" } } };
        let written = match &self.balancer_setting {
            Some(d) => crate::query::apply_update(d, &set),
            None => crate::query::upsert_document(&bson::doc! { "_id": "balancer" }, &set),
        };
        match written {
            Ok(d) => self.write_balancer_setting(Some(d)),
            // The update cannot fail on a document of this shape; should it, the mode
            // still changes, as the balancer's own state would.
            Err(_) => self.balancer_enabled = on,
        }
    }

    /// Whether a balancer round at the clock's time balances (`shouldBalance`): the
    /// balancer is on, its settings parsed, and the time is inside its window. The
    /// window is read in UTC, the simulated servers' local time.
    pub(crate) fn balancer_may_balance(&self) -> bool {
        self.balancer_enabled && self.settings_refresh_ok() && self.in_balancing_window()
    }

    /// Whether `BalancerConfiguration::refreshAndCheck` succeeds, which each balancer
    /// round (else "Skipping balancing round") and, before 6.0.3, each auto-split
    /// (else no split) calls first: the `balancer` document parses, and so does the
    /// era's other enabled-flag document, `autosplit` in 3.4 to 5.0 and `automerge` from
    /// 7.0 (their `refreshAndCheck` reads balancer, chunksize, then autosplit or automerge;
    /// `bsonExtractBooleanField` wants `enabled` a boolean). The chunk size document is
    /// left out as [`Cluster::write_chunksize_setting`] takes it.
    pub(crate) fn settings_refresh_ok(&self) -> bool {
        let parses = |doc: &Option<Document>| {
            doc.as_ref()
                .is_none_or(|d| balancer_settings::enabled_setting(d).is_some())
        };
        let flag = if self.version().auto_splits() {
            &self.autosplit_setting
        } else {
            &self.automerge_setting
        };
        !self.balancer_refresh.refused && parses(flag)
    }

    /// Whether the clock's time (to the second, as `second_clock` reads it) is inside
    /// the balancing window; true without one.
    pub(crate) fn in_balancing_window(&self) -> bool {
        match self.balancer_refresh.window {
            None => true,
            Some(w) => balancer_settings::in_window(
                w,
                self.clock.now_ms().div_euclid(1_000).rem_euclid(DAY_S),
            ),
        }
    }

    /// The first time after `after_us` (microseconds since the clock's epoch) at which
    /// the window opens or closes, so that idle rounds counted without being run never
    /// pass a moment that would change what a round does.
    pub(crate) fn next_window_edge_us(&self, after_us: i64) -> Option<i64> {
        let (start, stop) = self.balancer_refresh.window?;
        let at_ms = to_ms(after_us);
        let day_ms = at_ms.div_euclid(DAY_S * 1_000) * DAY_S * 1_000;
        // Inside until the end of `stop`'s second, outside from `start`'s.
        let edges = [start.rem_euclid(DAY_S), (stop + 1).rem_euclid(DAY_S)];
        let next_ms = (0..2)
            .flat_map(|day| edges.map(|e| day_ms + (day * DAY_S + e) * 1_000))
            .filter(|&ms| ms > at_ms)
            .min()?;
        Some(after_us.saturating_add((next_ms - at_ms).saturating_mul(1_000)))
    }

    /// How many idle rounds, `idle` microseconds apart from `next`, may be counted
    /// without running before the window's next edge.
    pub(crate) fn idle_rounds_before_window_edge(&self, next: i64) -> Option<i64> {
        let edge = self.next_window_edge_us(next)?;
        let idle = ROUND_INTERVAL_MS * 1_000;
        Some(
            (edge.saturating_sub(next) + idle - 1)
                .div_euclid(idle)
                .max(0),
        )
    }
}

//! The session's side of the simulated clock: what each statement costs, `sleep(ms)`,
//! `sim.clock()` and the balancer's status as `balancerStatus` reports it.
//!
//! The clock itself and the background balancer live in the engine (`engine/clock.rs`,
//! `engine/background.rs`); a session only tells it when a statement ended and how much
//! it read, and syncs the language's clock (`new Date()`, `Date.now()`, `ObjectId()`)
//! with it before each statement.

use super::interpreter::{call_args, Output, Session, StatementError};
use crate::engine::cluster::{Cluster, VersionMode};
use crate::shell::Expr;
use bson::{doc, Bson, DateTime, Document};

/// Node's largest timer delay, `TIMEOUT_MAX` (2^31 - 1 ms): `setTimeout` replaces any
/// delay above it, or below 1, with 1 ms.
const TIMEOUT_MAX_MS: f64 = 2_147_483_647.0;

impl Session {
    /// The simulated time, in milliseconds since the Unix epoch: what `new Date()` reads.
    pub fn now_ms(&self) -> i64 {
        self.cluster.now_ms()
    }

    /// Before a statement: the language's clock reads the cluster's.
    pub(super) fn start_statement(&mut self) {
        self.ctx.now_millis = self.cluster.now_ms();
    }

    /// After a statement: charges its work to the clock (the background balancer takes
    /// the rounds that fall due meanwhile).
    pub(super) fn end_statement(&mut self, result: &Result<Output, StatementError>) {
        let read = match result {
            Ok(Output::Cursor(docs)) => docs.len() as u64,
            _ => 0,
        };
        self.cluster.finish_statement(read);
    }

    /// `sleep(ms)`: lets `ms` milliseconds of simulated time pass, and the balancer run.
    /// mongosh's `sleep` is `setTimeout(resolve, ms)` (`packages/shell-api/src/shell-api.ts`),
    /// so the delay follows Node's timers: converted to a number, and 1 ms when that is
    /// not between 1 and `TIMEOUT_MAX`. It returns `undefined`, which prints nothing.
    pub(super) fn sleep(&mut self, args: &[Expr]) -> Result<Output, StatementError> {
        let ms = match self.opt_arg(args, 0)? {
            Some(v) => to_number(&v),
            None => f64::NAN,
        };
        let ms = if (1.0..=TIMEOUT_MAX_MS).contains(&ms) {
            ms.trunc() as i64
        } else {
            1
        };
        self.cluster.advance_clock(ms);
        self.ctx.now_millis = self.cluster.now_ms();
        Ok(Output::Nothing)
    }

    /// `sleep(...)` as a statement's head: checks it is called.
    pub(super) fn sleep_segment(
        &mut self,
        seg: &crate::shell::parser::Segment,
    ) -> Result<Output, StatementError> {
        let args = call_args(seg)?;
        self.sleep(args)
    }
}

/// JavaScript's `ToNumber` for the values a script passes to `sleep`.
fn to_number(v: &Bson) -> f64 {
    match v {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        Bson::Boolean(b) => f64::from(u8::from(*b)),
        Bson::Null => 0.0,
        Bson::String(s) if s.trim().is_empty() => 0.0,
        Bson::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        Bson::DateTime(d) => d.timestamp_millis() as f64,
        _ => f64::NAN,
    }
}

/// `sim.clock()`: the simulated time, how long the cluster has run, and the balancer's
/// schedule.
pub(super) fn sim_clock(s: &mut Session, _: &[Expr]) -> Result<Bson, StatementError> {
    let c = &s.cluster;
    let elapsed = c.now_ms() - crate::engine::EPOCH_MS;
    let balancer = doc! {
        "mode": if c.balancer_enabled { "full" } else { "off" },
        "rounds": crate::values::js::js_number(c.balancer_rounds() as f64),
        "nextRound": DateTime::from_millis(c.next_balancer_round_ms()),
    };
    Ok(Bson::Document(doc! {
        "now": DateTime::from_millis(c.now_ms()),
        "elapsedMillis": crate::values::js::js_number(elapsed as f64),
        "balancer": balancer,
        "ok": 1,
    }))
}

/// The `balancerStatus` reply, which mongosh's `sh.isBalancerRunning()` returns as is
/// (`packages/shell-api/src/shard.ts`). Its fields come from `Balancer::report` in
/// `src/mongo/db/s/balancer/balancer.cpp`: `mode`, `inBalancerRound`, `numBalancerRounds`
/// (a long) in every era, and from 7.0 the config server's replication `term` (a long; a
/// new replica set's first term is 1). A round takes no simulated time, so between
/// statements the balancer is never inside one.
pub(super) fn balancer_status(cluster: &Cluster) -> Document {
    let mut d = doc! {
        "mode": if cluster.balancer_enabled { "full" } else { "off" },
        "inBalancerRound": false,
        "numBalancerRounds": i64::try_from(cluster.balancer_rounds()).unwrap_or(i64::MAX),
    };
    if cluster.version() >= VersionMode::V70 {
        d.insert("term", 1_i64);
    }
    d.insert("ok", 1);
    d
}

//! `config.settings`' `balancer` document and what the balancer takes from it: whether it
//! runs (`mode`, `stopped`) and when (`activeWindow`), as `BalancerConfiguration` in
//! MongoDB's `src/mongo/s/balancer_configuration.cpp` reads it at each round's refresh.
//! Administrators write the document as the manual's "Manage Sharded Cluster Balancer"
//! shows (`db.settings.updateOne({_id: "balancer"}, {$set: {activeWindow: {start, stop}}},
//! {upsert: true})`); `balancerStart` and `balancerStop` upsert `mode` and `stopped` into
//! the same document. The balancer's loop reads it in `background.rs`.
//!
//! The same refresh reads the `autosplit` document (3.4 to 5.0's `AutoSplitSettingsType`)
//! and the `automerge` one (7.0 on, `AutoMergeSettingsType`): [`enabled_setting`].

use bson::{Bson, Document};

/// Seconds in a day.
pub(crate) const DAY_S: i64 = 86_400;

/// What the balancer took from the `balancer` document at its last refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct BalancerRefresh {
    /// The balancing window, as seconds from the day's midnight (`start`, `stop`); `None`
    /// balances at any time.
    pub(crate) window: Option<(i64, i64)>,
    /// Whether the document failed to parse (`getSettingsFromBSON`): the refresh fails,
    /// and every round is skipped until the document is fixed (balancer.cpp,
    /// "Skipping balancing round").
    pub(crate) refused: bool,
}

/// The balancer's settings as `BalancerConfiguration::getSettingsFromBSON` parses them:
/// whether the balancer is on (`stopped: true` forces `mode: 'off'`) and the window.
/// `None` when the document does not parse (a `mode` other than `full` or `off`, an
/// `activeWindow` that is not `{start: "hh:mm", stop: "hh:mm"}` with two different
/// times).
pub(crate) fn parse(doc: &Document) -> Option<(bool, Option<(i64, i64)>)> {
    let stopped = match doc.get("stopped") {
        None => false,
        Some(Bson::Boolean(b)) => *b,
        Some(_) => return None,
    };
    let full = match doc.get("mode") {
        None => true,
        Some(Bson::String(m)) if m == "full" => true,
        Some(Bson::String(m)) if m == "off" => false,
        Some(_) => return None,
    };
    let window = match doc.get("activeWindow") {
        None => None,
        Some(Bson::Document(w)) => {
            let time = |k: &str| match w.get(k) {
                Some(Bson::String(s)) => to_point_in_time(s),
                _ => None,
            };
            let (start, stop) = (time("start")?, time("stop")?);
            if start == stop {
                return None;
            }
            Some((start, stop))
        }
        Some(_) => return None,
    };
    Some((full && !stopped, window))
}

/// `AutoSplitSettingsType::fromBSON` and `AutoMergeSettingsType::fromBSON`
/// (balancer_configuration.cpp): the `enabled` of an `autosplit` or `automerge` document,
/// which `bsonExtractBooleanField` takes only as a boolean. `None` when it is missing or
/// of another type (`{enabled: 0}`, `{enabled: 'no'}`): the refresh that reads it fails,
/// and `refreshAndCheck` with it.
pub(crate) fn enabled_setting(doc: &Document) -> Option<bool> {
    match doc.get("enabled") {
        Some(Bson::Boolean(b)) => Some(*b),
        _ => None,
    }
}

/// `toPointInTime`: the time of day of `"hh:mm"` in seconds, read as `sscanf("%d:%d")`
/// reads it (leading blanks and a sign before each number, anything after the minutes
/// ignored), well formed when `hh / 24` and `mm / 60` are both zero in C's truncating
/// division (so `-1:00` passes, an hour before midnight).
pub(crate) fn to_point_in_time(s: &str) -> Option<i64> {
    fn int(s: &str) -> Option<(i64, &str)> {
        let t = s.trim_start();
        let (sign, t) = match t.as_bytes().first() {
            Some(b'-') => (-1, &t[1..]),
            Some(b'+') => (1, &t[1..]),
            _ => (1, t),
        };
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let n: i64 = t[..digits].parse().ok()?;
        Some((sign * n, &t[digits..]))
    }
    let (hh, rest) = int(s)?;
    let rest = rest.strip_prefix(':')?;
    let (mm, _) = int(rest)?;
    if hh / 24 != 0 || mm / 60 != 0 {
        return None;
    }
    Some(hh * 3_600 + mm * 60)
}

/// `isTimeInBalancingWindow` for a time of day `now` (seconds): inside `[start, stop]`,
/// or, for a window over midnight, at or after `start` or at or before `stop`.
pub(crate) fn in_window((start, stop): (i64, i64), now: i64) -> bool {
    if stop > start {
        now >= start && now <= stop
    } else {
        now >= start || now <= stop
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn times_read_as_sscanf_reads_them() {
        assert_eq!(to_point_in_time("23:00"), Some(82_800));
        assert_eq!(to_point_in_time("6:00"), Some(21_600));
        assert_eq!(to_point_in_time(" 6: 05pm"), Some(21_900));
        assert_eq!(to_point_in_time("24:00"), None);
        assert_eq!(to_point_in_time("6:60"), None);
        assert_eq!(to_point_in_time("-1:00"), Some(-3_600));
        assert_eq!(to_point_in_time("6"), None);
        assert_eq!(to_point_in_time("six:00"), None);
    }

    #[test]
    fn a_window_over_midnight_holds_both_ends() {
        let w = (82_800, 21_600);
        assert!(in_window(w, 82_800));
        assert!(in_window(w, 0));
        assert!(in_window(w, 21_600));
        assert!(!in_window(w, 21_601));
        assert!(!in_window((3_600, 7_200), 0));
        assert!(in_window((3_600, 7_200), 7_200));
    }

    #[test]
    fn a_document_that_does_not_parse_is_refused() {
        assert_eq!(parse(&doc! {"_id": "balancer"}), Some((true, None)));
        assert_eq!(
            parse(&doc! {"_id": "balancer", "mode": "full", "stopped": true}),
            Some((false, None))
        );
        assert_eq!(
            parse(&doc! {"_id": "balancer", "mode": "autoSplitOnly"}),
            None
        );
        let same = doc! {"_id": "balancer", "activeWindow": {"start": "1:00", "stop": "01:00"}};
        assert_eq!(parse(&same), None);
        let missing = doc! {"_id": "balancer", "activeWindow": {"start": "1:00"}};
        assert_eq!(parse(&missing), None);
    }

    #[test]
    fn enabled_is_taken_only_as_a_boolean() {
        assert_eq!(
            enabled_setting(&doc! {"_id": "automerge", "enabled": false}),
            Some(false)
        );
        assert_eq!(
            enabled_setting(&doc! {"_id": "autosplit", "enabled": true}),
            Some(true)
        );
        assert_eq!(
            enabled_setting(&doc! {"_id": "autosplit", "enabled": 0}),
            None
        );
        assert_eq!(enabled_setting(&doc! {"_id": "automerge"}), None);
    }
}

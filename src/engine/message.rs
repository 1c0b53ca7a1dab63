//! The engine's sentences as messages of the page's text catalogue: an id of
//! [`MESSAGES`] and its placeholders' values ([`Message`]), so that a page words them in
//! its reader's language while the CLI prints their English, built from the same
//! templates.

/// The sentences the engine's explanations and its event log can be made of, each a
/// message of the page's text catalogue (`static/i18n/en.json` holds each id with the same
/// English text, which `tests/it/i18n_catalogues.rs` checks): its id and its English text
/// with `{name}` placeholders. The engine says which message with which values
/// ([`Message`]); a page words it in its reader's language, and `sim.explain` and
/// `sim.events` print the English.
pub const MESSAGES: &[(&str, &str)] = &[
    (
        "explain.landing.hashed",
        "Its {field} {value} hashes to {hash} (convertShardKeyToHashed: the first 8 bytes of an MD5 of the value, read as a signed 64-bit integer). A hashed key's chunks are ranges of hashes, and {range} (min included, max excluded) holds that hash, on {shard}, so mongos routes the document to {shard}.",
    ),
    (
        "explain.landing.range",
        "Its shard key value {key} falls in the chunk {range} (min included, max excluded), which lives on {shard}, so mongos routes the document to {shard}.",
    ),
    (
        "explain.landing.missing",
        " A missing shard key field ({fields}) counts as null.",
    ),
    ("explain.count.chunk", "1 chunk"),
    ("explain.count.chunks", "{n} chunks"),
    ("explain.count.document", "1 document"),
    ("explain.count.documents", "{n} documents"),
    ("explain.jumbo.one_value", "Jumbo chunk: it grew past the maximum chunk size ({bytes} > {max}) and all of its {docs} documents share one shard key value, so autoSplitVector finds no split point. The balancer does not move a jumbo chunk, not even off a draining shard, until clearJumboFlag clears the flag."),
    ("explain.jumbo.flag_stays", "Jumbo chunk: it was marked when it was over the maximum chunk size ({max}) with a single shard key value. It now holds more than one value, but the flag stays until a split or clearJumboFlag; the balancer does not move it meanwhile."),
    ("explain.split.never", "MongoDB 6.0.3 and later never split a chunk as it grows: this one holds {bytes} against a range size of {max}, and stays whole until the balancer cuts about one range size off it to move it."),
    ("explain.split.disabled", "Auto-splitting is turned off (sh.disableAutoSplit()), so this chunk ({bytes}) is not split however large it grows."),
    ("explain.split.check_points", "When it is checked, autoSplitVector will cut it at {points} point(s)."),
    ("explain.split.check_one_value", "Even then it has no split point: all {docs} documents share one shard key value."),
    ("explain.split.check_one_value_jumbo", "Even then it has no split point: all {docs} documents share one shard key value, so the check will mark it jumbo."),
    ("explain.split.check_small_shard", "Even then autoSplitVector cuts nothing while the collection's data on {shard} ({bytes}) is under the maximum chunk size ({max})."),
    ("explain.split.check_too_few", "Even then autoSplitVector finds no split point: it cuts every (maximum chunk size / average document size on the shard) documents, and this chunk's {docs} documents do not reach that."),
    ("explain.split.one_value", "No split point: all {docs} documents share one shard key value, and a chunk is only ever cut between different values, so autoSplitVector returns nothing."),
    ("explain.split.one_value_jumbo", "No split point: all {docs} documents share one shard key value, and a chunk is only ever cut between different values, so autoSplitVector returns nothing; it is over the maximum chunk size ({bytes} > {max}), so the splitter's next check (after {next} more written) marks it jumbo."),
    ("explain.split.threshold", "Not split yet: 5.0's splitter looks at a chunk only after a fifth of the maximum chunk size ({threshold}) has been written to it since it was created, moved or last checked; {written} has been written since, so the next check comes after {next} more. {check}"),
    ("explain.split.due", "The splitter's check is due. {check}"),
    ("explain.balancer.stopped", "The balancer is stopped (sh.stopBalancer()), so no chunk moves unless you move it."),
    ("explain.balancer.disabled", "Balancing is disabled for {ns} (sh.disableBalancing), so its chunks stay where they are."),
    ("explain.balancer.moves_it", "The next balancer round moves this chunk to {to}. {why}"),
    ("explain.balancer.skips_jumbo", "The balancer skips jumbo chunks, even on a draining shard, until clearJumboFlag clears the flag or a split divides the chunk."),
    ("explain.balancer.zone_not_reached", "The next balancer round does not reach this chunk's zone."),
    ("explain.balancer.moves_another", "{why} The balancer moves the donor's first movable chunk, {range}, not this one."),
    ("explain.balancer.stays", "{why} So this chunk stays on {shard}."),
    ("explain.whose.zone", "zone {zone}'s chunks over its {shards} shard(s)"),
    ("explain.whose.no_zone", "the chunks in no zone"),
    ("explain.load", "{shard} ({load})"),
    ("explain.load.none", "none"),
    ("explain.ideal.ceil", "ceil({total} chunks / {shards} shards) = {ideal}"),
    ("explain.ideal.round", "round({total} chunks / {shards} shards) = {ideal}"),
    ("explain.ideal.size", "{total} / {shards} shards = {ideal}"),
    ("explain.unit.size", "data size"),
    ("explain.unit.count", "chunk counts"),
    ("explain.decision.move", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}; the most loaded shard, {donor}, is above it and the least loaded, {recipient}, below, so a chunk moves."),
    ("explain.decision.move_size", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}; the most loaded shard, {donor}, is above it and holds at least {factor} × the range size ({threshold}) more than the least loaded that may receive, {recipient}, so a chunk moves."),
    ("explain.decision.no_shards", "No shard is in the zone of {whose}, so nothing can balance them."),
    ("explain.decision.no_data", "The collection holds no data yet, so the data-size balancer has nothing to move."),
    ("explain.decision.no_donor", "Every shard already takes part in a migration this round (each shard joins at most one per round)."),
    ("explain.decision.no_recipient", "No shard can receive a chunk: every candidate is busy this round, draining, or outside the zone."),
    ("explain.decision.same_shard", "The {version} balancer compares {unit} of {whose}: the most loaded shard, {donor}, is also the least loaded that may receive, so nothing moves."),
    ("explain.decision.balanced", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}, and the most loaded shard, {donor}, is not above it, so the collection counts as balanced."),
    ("explain.decision.recipient_not_below", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}; the most loaded shard is {donor}, but the least loaded that may receive, {recipient}, is not below the ideal, so nothing moves."),
    ("explain.decision.size_gap_small", "The 8.0 balancer compares data size, not chunk counts: {donor} and {recipient} differ by {gap}, under {factor} × the range size ({threshold}), so nothing moves."),
    ("explain.decision.excess_small", "The 3.6 balancer compares chunk counts of {whose}: the ideal is {ideal}, and the most loaded shard, {donor}, is only {excess} over it; 3.6 moves a chunk when the excess reaches {threshold} (1 under 20 chunks or right after a round that moved chunks, 2 otherwise)."),
    ("explain.decision.all_jumbo", "The most loaded shard, {donor}, should give a chunk, but all its chunks of {whose} are jumbo, and the balancer skips jumbo chunks."),
    ("explain.drain.moves", "{shard} is draining (removeShard): the balancer empties it first, one chunk per round, skipping jumbo chunks, to the least loaded shard; {range} goes to {to} ({chunks} chunk(s) were left on it)."),
    ("explain.drain.stuck", "{shard} is draining (removeShard), but no shard can take its chunks this round, or all of them are jumbo."),
    ("explain.zone_violation.moves", "{range} lies in zone {zone}'s range but sits on {shard}, which is not in the zone: the balancer moves it to {to}, a shard of the zone, before any other balancing."),
    ("explain.zone_violation.stuck", "A chunk of zone {zone} sits on {shard}, outside the zone, but could not move this round."),
    ("explain.round.stopped", "The balancer is stopped (sh.stopBalancer()): rounds do not run."),
    ("explain.round.disabled", "Balancing is disabled for {ns}."),
    ("explain.holding", "{shard} holds {chunks} of {total} ({docs}, {bytes}). {why}"),
    ("explain.holding.never_split", " In 6.0.3+ chunks never split on insert, and one range may grow to {max} before the balancer cuts it: a sharded collection can sit whole on one shard."),
    ("explain.holding.still", "{shard} holds {chunks} of {total} ({docs}). {why}"),
    ("explain.holding.balancer_stopped", "The balancer is stopped, so chunks stay where splits and manual moves put them."),
    ("explain.holding.balancing_disabled", "Balancing is disabled for the collection, so chunks stay where splits and manual moves put them."),
    ("explain.draining", "removeShard started draining {shard}: each round the balancer first moves one of its chunks to the least loaded shard that may take it, skipping jumbo chunks; {chunks} chunk(s) remain, {jumbo} of them jumbo (they stay until clearJumboFlag clears the flag), and it leaves the cluster once it holds none."),
    ("explain.zones.none", "{shard} is in no zone: a chunk inside a zone's range may live only on that zone's shards, so {shard} holds only chunks outside every zone range (the balancer moves the others away first)."),
    ("explain.zones.some", "{shard} is in zone(s) {zones}: chunks inside those zones' ranges may live only on their shards, and each zone is balanced over its own shards; {count} of its chunks lie in a zone range."),
    ("explain.top_chunk", "{shard} received {moves} single-document top (or bottom) chunk(s): when 5.0 splits the chunk at either end of an ordered key, it cuts at the extreme key, so the new end chunk holds one document, and moves that chunk to the least loaded shard (the top-chunk optimisation). That is how a shard ends up holding a chunk with one document."),
    ("explain.rule.jumbo_chunk", "jumbo chunk"),
    ("explain.rule.no_auto_split", "no auto-split (6.0.3+)"),
    ("explain.rule.auto_split_disabled", "auto-split disabled"),
    ("explain.rule.no_split_point", "no split point (one key value)"),
    ("explain.rule.split_check_threshold", "split-check threshold"),
    ("explain.rule.auto_split_vector", "autoSplitVector"),
    ("explain.rule.balancer_stopped", "balancer stopped"),
    ("explain.rule.balancing_disabled", "balancing disabled"),
    ("explain.rule.balancer_round", "balancer round"),
    ("explain.rule.chunk_count_36", "3.6 chunk-count balancing"),
    ("explain.rule.chunk_count_50", "5.0 chunk-count balancing"),
    ("explain.rule.data_size_80", "8.0 data-size balancing"),
    ("explain.rule.draining", "draining"),
    ("explain.rule.zones", "zones"),
    ("explain.rule.top_chunk_move", "top-chunk move"),
    ("explain.rule.hashed_routing", "hashed routing"),
    ("explain.rule.range_routing", "range routing"),
    ("event.insert", "{ns}: inserted {counts}"),
    ("event.split", "{ns}: split [{min}, {max}) at {points}"),
    ("event.moving", "{ns}: moving [{min}, {max}) from {from} to {to}"),
    ("event.moved", "{ns}: moved [{min}, {max}) from {from} to {to}"),
    ("event.jumbo", "{ns}: [{min}, {max}) is jumbo"),
    ("event.sharded", "{ns}: sharded on {key}"),
    ("event.merged", "{ns}: merged into [{min}, {max})"),
    ("event.cleared_jumbo", "{ns}: cleared the jumbo flag at {min}"),
    ("event.refined", "{ns}: refined the shard key to {key}"),
    ("event.resharded", "{ns}: resharded on {key}"),
    ("event.added_shard", "added {shard}"),
    ("event.draining", "{shard} started draining"),
    ("event.removed_shard", "{shard} was removed"),
    ("event.zone.joined", "{shard} joined zone {zone}"),
    ("event.zone.left", "{shard} left zone {zone}"),
    ("event.zone.range_removed", "removed a zone range of {ns}"),
    ("event.zone.range_added", "zone {zone} got a range of {ns}"),
    ("event.document_moved", "{ns}: a document moved from {from} to {to}"),
    ("event.deleted", "{ns}: deleted {count}"),
    // The heatmap's words (`sim::heat`): the pattern read in the grid, by name and in a
    // sentence, and what a ranked axis shows.
    ("heat.name.hot_edge", "hot edge"),
    ("heat.name.band", "band"),
    ("heat.name.even", "even"),
    ("heat.name.uneven", "uneven"),
    ("heat.name.too_little", "too little data"),
    ("heat.pattern.too_little", "Too few inserts over too few steps to name a pattern."),
    ("heat.pattern.hot_edge", "{share} of the inserts after the first step went {side} every earlier key, so they all hit the chunk at the {end} end of the key space: the sign of a monotonic shard key, whose writes one shard takes at a time."),
    ("heat.side.above", "above"),
    ("heat.side.below", "below"),
    ("heat.pattern.band", "{width} of the key space takes {share} of the inserts, in {persistence} of the steps: a hot value (or tenant) whose documents share a range, and whose chunk's shard takes most writes."),
    ("heat.pattern.even", "Inserts spread over the whole key space (evenness {evenness} of 1), as a hashed key or random values spread them, so every chunk's shard shares the writes."),
    ("heat.pattern.uneven", "Half the inserts fall in {width} of the key space, but neither at an edge nor in one steady band."),
    ("heat.axis.ranked", "Up the side: the key's values in order, MinKey at the bottom, by rank: every distinct value inserted and every chunk bound gets an equal band ({bands} here), so a few values show as wide bands and one far-off value takes a band of its own instead of squeezing the rest."),
    ("heat.axis.ranked_sampled", "Up the side: the key's values in order, MinKey at the bottom, by rank: every distinct value inserted and every chunk bound ({bands} of them, sampled evenly by rank) gets an equal band ({bands} here), so a few values show as wide bands and one far-off value takes a band of its own instead of squeezing the rest."),
    // ShardLab's own sentences beside analyzeShardKey's report (`analyze`): why the read
    // and write distribution is missing. MongoDB's error itself stays as it prints it.
    ("analyze.skipped", "Read and write distribution skipped. {why} MongoDB's error: {error}"),
    ("analyze.how", "MongoDB measures reads and writes over {ranges} ranges of about equal document counts. It finds the {wanted} boundaries between them by sampling {sample} documents ({per} per boundary), sorting their keys and keeping every {per}th; each boundary must be a different key value."),
    ("analyze.few_docs", "{how} This collection holds {docs} documents, so the sample is all of them and yields at most {most} boundaries, fewer than {wanted}, however many distinct values it has ({distinct} here). The distributions appear once it holds at least {sample} documents whose every {per}th key differs."),
    ("analyze.few_values", "{how} This key has {distinct} distinct values, fewer than the {wanted} boundaries needed. The distributions appear only for a key with more distinct values, such as one refined with another field."),
    ("analyze.uneven", "{how} This key has {distinct} distinct values, but a few of them fill so much of the sample that fewer than {wanted} different keys fall every {per}th place. The distributions appear once the values are spread more evenly, or with more distinct values."),
    // The playground's own words (`shardlab-engine`, which names them and checks that it
    // names every one): the console's first line, a lesson's opening line, a replay's
    // progress, the notices, and why the heatmap is empty.
    ("engine.console.welcome", "ShardLab shell: type mongosh commands, e.g. sh.status() or db.events.find({x: 5}).explain()"),
    ("engine.console.lesson", "Lesson: {title}. {text}"),
    ("engine.console.replaying", "Replaying a scenario of {total} steps: {done} replayed so far."),
    ("engine.console.restored", "Restored a scenario of {steps} steps, at step {position}."),
    ("engine.notice.workload_full", "{ns} already holds {count} documents, the workload's total of {total}. Raise Total to insert more."),
    ("engine.notice.past_end", "position {requested} is past the end of the timeline ({len} steps)"),
    ("engine.plan.no_command", "{version} mode has no {command}."),
    ("engine.plan.refine_prefix", "Refining only adds fields after the current key's: {key} does not start with {old}."),
    ("engine.heat.no_collection", "No collection to show yet."),
    ("engine.heat.no_steps", "No steps yet: nothing has happened on the timeline."),
    ("engine.heat.not_sharded", "{ns} is not sharded at this step, so it has no key space to draw. Shard it (or pick a sharded collection) to see where its inserts land."),
    ("engine.heat.no_inserts", "No inserts into {ns} yet: play or step the workload to see where they land."),
];

/// One sentence of an explanation as a message of [`MESSAGES`]: its id and the values of
/// its placeholders, as mongosh prints them.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message's id, a key of the page's catalogue.
    pub id: &'static str,
    /// Each placeholder's value.
    pub args: Vec<(&'static str, Arg)>,
}

/// A placeholder's value: a text as mongosh prints it (a figure, a bound, a shard's
/// name), or a message of its own (a phrase a language words, such as "3 chunks").
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A text no language changes.
    Text(String),
    /// A phrase worded in the reader's language.
    Message(Message),
}

impl From<String> for Arg {
    fn from(text: String) -> Arg {
        Arg::Text(text)
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Arg {
        Arg::Text(text.to_string())
    }
}

impl From<u64> for Arg {
    fn from(v: u64) -> Arg {
        Arg::Text(v.to_string())
    }
}

impl From<Message> for Arg {
    fn from(m: Message) -> Arg {
        Arg::Message(m)
    }
}

/// A [`Message`] of [`MESSAGES`]: `msg!(<id>, docs = 3u64, shard = name)`.
macro_rules! msg {
    ($id:literal $(, $name:ident = $value:expr)* $(,)?) => {
        $crate::engine::message::Message::new(
            $id,
            vec![$((stringify!($name), $crate::engine::message::Arg::from($value))),*],
        )
    };
}
pub(crate) use msg;

impl Message {
    /// The message `id` of [`MESSAGES`] with its placeholders' values.
    pub fn new(id: &'static str, args: Vec<(&'static str, Arg)>) -> Message {
        Message { id, args }
    }

    /// The message's English template in `catalogue` (empty for an id it lacks, which a
    /// test rules out).
    fn template(&self, catalogue: &[(&str, &'static str)]) -> &'static str {
        // A message of the engine's own catalogue may stand inside another catalogue's
        // (a ranking's sentence quoting analyzeShardKey's note): it is found there.
        catalogue
            .iter()
            .chain(MESSAGES)
            .find(|(id, _)| *id == self.id)
            .map_or("", |(_, text)| *text)
    }

    /// The message in English: its text with the placeholders filled.
    pub fn english(&self) -> String {
        self.english_in(MESSAGES)
    }

    /// The message in English, its template (and those of the messages among its values)
    /// read from `catalogue`: for sentences of a layer above the engine that keeps its own
    /// templates in [`MESSAGES`]' form (`sim::RANK_MESSAGES`).
    pub fn english_in(&self, catalogue: &[(&str, &'static str)]) -> String {
        let mut out = String::with_capacity(self.template(catalogue).len() + 64);
        self.write_english(&mut out, catalogue);
        out
    }

    fn write_english(&self, out: &mut String, catalogue: &[(&str, &'static str)]) {
        // One pass, so that a value holding braces is never read as a placeholder.
        let mut rest = self.template(catalogue);
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let named = after.find('}').and_then(|close| {
                let value = self.args.iter().find(|(n, _)| *n == &after[..close])?;
                Some((&value.1, close))
            });
            match named {
                Some((value, close)) => {
                    match value {
                        Arg::Text(text) => out.push_str(text),
                        Arg::Message(m) => m.write_english(out, catalogue),
                    }
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
    }
}

/// The message naming an explanation's rule (`explain.rule.*`, found by its English
/// name, such as "split-check threshold"), for a page to word in its reader's language.
pub fn rule_message(rule: &str) -> Option<Message> {
    MESSAGES
        .iter()
        .find(|(id, text)| id.starts_with("explain.rule.") && *text == rule)
        .map(|(id, _)| Message::new(id, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id the engine's code names with `msg!` is a template of [`MESSAGES`], and every template
    /// is named somewhere: no sentence falls back to an empty English, none is dead.
    #[test]
    fn every_message_named_is_a_template_and_every_template_is_named() {
        let code = [
            include_str!("explain.rs"),
            include_str!("events.rs"),
            include_str!("../sim/heat.rs"),
            include_str!("analyze.rs"),
        ]
        .concat();
        let named: Vec<&str> = code
            .split("msg!(")
            .skip(1)
            .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
            .filter(|id| {
                ["explain.", "event.", "heat.", "analyze."]
                    .iter()
                    .any(|p| id.starts_with(p))
            })
            .collect();
        assert!(named.len() > 40, "found {} uses", named.len());
        for id in &named {
            assert!(MESSAGES.iter().any(|(m, _)| m == id), "{id} is no template");
        }
        for (id, text) in MESSAGES {
            if id.starts_with("engine.") {
                // Named by `shardlab-engine`, whose own test checks them.
                continue;
            }
            if id.starts_with("explain.rule.") {
                // A rule's name is named by its English (see `rule_message`).
                let literal = format!("\"{text}\"");
                assert!(code.contains(&literal), "{id}: no rule is called {text}");
            } else {
                assert!(named.contains(id), "{id} is never used");
            }
        }
        let mut ids: Vec<&str> = MESSAGES.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), MESSAGES.len(), "an id is given twice");
    }

    /// A message's English fills its placeholders with texts and with the English of the
    /// messages among its values, and never reads a value's braces as a placeholder.
    #[test]
    fn a_rule_is_named_by_its_english() {
        let m = rule_message("split-check threshold").expect("a rule's message");
        assert_eq!(m.id, "explain.rule.split_check_threshold");
        assert_eq!(m.english(), "split-check threshold");
        assert_eq!(rule_message("no such rule"), None);
        // Only a rule's name: a sentence with the same words is no rule.
        assert_eq!(rule_message("none"), None);
    }

    #[test]
    fn english_fills_texts_and_nested_messages() {
        let three = msg!("explain.count.chunks", n = 3u64);
        let load = msg!("explain.load", shard = "shard01", load = three);
        assert_eq!(load.english(), "shard01 (3 chunks)");
        let why = msg!("explain.round.disabled", ns = "{shard}");
        let stays = msg!("explain.balancer.stays", why = why, shard = "shard02");
        assert_eq!(
            stays.english(),
            "Balancing is disabled for {shard}. So this chunk stays on shard02."
        );
        // A placeholder without a value stays as written.
        assert_eq!(
            msg!("explain.round.disabled").english(),
            "Balancing is disabled for {ns}."
        );
    }
}

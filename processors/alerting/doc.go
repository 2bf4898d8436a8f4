// Package alerting evaluates alert rules on the stream, in the processor
// role. Every tick it takes the last complete minute, end. A minute is
// complete once the processors have landed its events: ingest stamps an
// event with the time it received it and appends it at once, so Settle
// after the minute ends the event log holds them all; the evaluator reads
// the log's end then (Landing) and waits until the processors' committed
// offsets cover it. Idle processors cover it at once, so a minute is
// evaluated Settle after it ends; lagging ones hold it back, and a minute
// is never evaluated on part of its data. (Without a Landing a minute
// counts as complete Settle after it ends.) For every enabled rule and
// each model it watches, and each end not evaluated yet, it observes the
// rule's conditions over their windows ending at end, from the rollups the
// processors keep (alerts.Observer over analytics.Store: per-minute and
// per-hour rollups, never raw rows), and then:
//
//   - all conditions hold: the rule, model and condition set's unresolved
//     alert is updated (observations, count, window_end,
//     last_triggered_at), or a new one opens unless one was resolved
//     within the rule's cooldown; a snoozed alert whose snooze has ended
//     goes back to open;
//   - they do not: the unresolved alert, if any, whose last holding window
//     ended before end, is resolved automatically (resolution auto).
//
// Replicas evaluate alike and never double-fire: the transactional store
// keeps at most one unresolved alert per rule, model and condition set (a
// unique key), a window already counted is not counted again, and only the
// replica whose write opened or reopened an alert reports it to Notify.
// The deliveries an opened or reopened alert owes its channels (Outbox)
// are stored in the alert's own transaction, so a crash between the two
// never keeps the alert and loses its page; they are sent later by
// alerts/channels' dispatcher, so a channel never blocks evaluation.
// A failing read or write is logged and the pair is tried again next tick;
// Notify is called after the write and its failures are its own.
//
// It imports alerts, the analytics and event log contracts, the platform
// and the store errors; it must not import an engine or the query API.
package alerting

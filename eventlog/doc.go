// Package eventlog is the contract of the durable event log between the
// ingest endpoints and the processors: the events that travel on it
// (Prediction, Metric, Completion, and the governance events), the Record
// a producer appends (Log) and the Message a consumer polls (Source).
// The engines are sibling packages: eventlog/embeddedlog (SQLite, the
// embedded default) and eventlog/kafka (Apache Kafka, producer and
// consumer group); eventlog/logtest is the contract both pass.
//
// A Prediction travels as a compact binary record (record.go: a magic and
// version byte, the kind, organization and model first, the JSON
// documents kept as the bytes the caller sent); the other events as JSON.
// DecodeEvent reads the JSON prediction records of logs written before the
// binary one as well, so an old log needs no migration. A consumer parses a
// prediction's documents once (Prediction.Parse) into the top-level fields
// that profiles, labels and output counts share.
//
// It imports nothing of Vigil but the maths tree (stats): it must never
// import the producers (ingest) or the consumers (processors) that use it.
package eventlog

// Package eventlog is the contract of the durable event log between the
// ingest endpoints and the processors: the events that travel on it
// (Prediction, Metric, Completion, and the governance events), the Record
// a producer appends (Log) and the Message a consumer polls (Source).
// The engines are sibling packages: eventlog/embeddedlog (SQLite, the
// embedded default) and eventlog/kafka (Apache Kafka, producer and
// consumer group); eventlog/logtest is the contract both pass.
//
// It imports nothing of Vigil but the maths tree (stats): it must never
// import the producers (ingest) or the consumers (processors) that use it.
package eventlog

// Package ingest accepts predictions, metrics and LLM completions and
// appends them to the event log: Apache Kafka (eventlog/kafka) or the
// embedded log.
package ingest

// Package otlp reads OpenTelemetry trace exports (OTLP/HTTP, protobuf or
// JSON, optionally gzipped) and finds the LLM calls among their spans, by
// the OpenTelemetry GenAI semantic conventions and by OpenInference's
// attributes. Package ingest logs the calls as completions.
//
// It imports the OTLP protobuf types alone and nothing of Vigil but the
// platform; it must not import the event log, a store or an API package.
package otlp

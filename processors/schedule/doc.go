// Package schedule runs drift detection on the stream, in the processor
// role: every tick it finds the models whose drift schedule is due, merges
// the hourly feature profiles the processors keep of the current window
// and of the model's reference, compares them (drift.Detector.FromProfiles)
// and writes a drift report per drift type: data drift on the inputs,
// prediction drift on the outputs. A report at high severity also puts a
// governance event on the log for the risk register.
//
// It imports drift, governance, registry, the analytics and eventlog
// contracts, the store errors and the maths tree; it must not import an
// engine or the query API.
package schedule

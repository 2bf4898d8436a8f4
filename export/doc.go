// Package export is the exports concern of spec 1: report templates (the
// built-in one of every report category, and an organization's own),
// their validation, export jobs with their status machine (pending,
// in_progress, completed, failed, cancelled), the Runner that renders
// them in the background and their downloads; configurations, schedules,
// delivery and shares are to come. A report is built and rendered by
// package report.
//
// It imports report, the registry (to resolve a job's models), the
// platform's plumbing and the store contract; never the store engines
// that keep its records.
package export

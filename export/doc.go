// Package export is the exports concern of spec 1: report templates (the
// built-in one of every report category, and an organization's own),
// their validation, and, to come, configurations, export jobs with their
// status machine, downloads, schedules, delivery and shares. A report is
// built and rendered by package report.
//
// It imports report, the platform's plumbing and the store contract;
// never the store engines that keep its records.
package export

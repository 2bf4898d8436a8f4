// Package export is the exports concern of spec 1: report templates (the
// built-in one of every report category, and an organization's own),
// their validation, configurations (how a report is produced and
// delivered), export jobs with their status machine (pending,
// in_progress, completed, failed, cancelled), alone or in bulk, the
// Runner that renders them in the background into Files (the local
// folder by default; package export/bucket keeps them in an S3-compatible
// bucket) and their downloads,
// evidence packs (a ZIP with a manifest of SHA-256 digests) and the
// organization's report branding (colour and logo, the logo's type
// sniffed and an unsafe SVG refused); schedules, delivery and shares are
// to come. A report is built and rendered by package report.
//
// It imports report, the registry (to resolve a job's models), bias and
// governance (the evidence a pack reads), the platform's plumbing and the
// store contract; never the store engines
// that keep its records.
package export

// Package export is the exports concern of spec 1: report templates (the
// built-in one of every report category, and an organization's own),
// their validation, configurations (how a report is produced and
// delivered), export jobs with their status machine (pending,
// in_progress, completed, failed, cancelled), alone or in bulk, the
// Runner that renders them in the background, evidence packs (a ZIP with
// a manifest of SHA-256 digests) and the organization's report branding
// (colour and logo, the logo's type sniffed and an unsafe SVG refused). A
// report is built and rendered by package report.
//
// A job's file is rendered into a scratch file, then put whole into Files
// (idempotent, durable before nil; the job completes only after): the
// local folder <data-dir>/exports by default (temporary name, fsync,
// rename), or an S3-compatible bucket (export/bucket). Every reader of a
// file goes through Files: downloads, shares, deliveries, retention. Owed
// jobs are read from the store, so a restart loses none; files past the
// retention (VIGIL_EXPORT_RETENTION) are removed by the Runner and their
// jobs expired. Shares (export/share), scheduled reports
// (export/reportschedule) and delivery integrations (export/delivery) sit
// in packages of their own.
//
// It imports report, the registry (to resolve a job's models), bias and
// governance (the evidence a pack reads), the platform's plumbing and the
// store contract; never the store engines
// that keep its records.
package export

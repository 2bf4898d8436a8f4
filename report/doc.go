// Package report is the one model of a generated report and its
// renderers. Gather reads what a report needs for some models and a
// period (the analytical store's rollups, never its rows; drift reports,
// alert instances, risk entries and trust snapshots from the
// transactional store), Build turns it into a Report of the sections a
// template asks for, and Render writes that Report as JSON, CSV, Markdown
// or HTML, every chart drawn once by report/chart. A section without
// underlying data is marked empty with the reason, never filled in.
//
// It imports the analytics contract, alerts, drift, governance, registry,
// the platform's plumbing and report/chart; never the code that serves
// exports.
package report

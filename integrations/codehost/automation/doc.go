// Package automation serves the pull-request automation of a tracked
// repository under /codehost/automation/repositories/{id}: branch
// protection requiring Vigil's checks (CheckValidation, CheckComparison),
// check runs of a validation or a comparison, and pull-request comments,
// one of them kept up to date per identifier (Marker). The bodies'
// patterns are stated the same in the document.
//
// It imports codehost, hostapi, connection and the platform.
package automation

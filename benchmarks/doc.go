// Package benchmarks measures Vigil on loopback: Go benchmarks of whole
// requests through a real server, run with
//
//	go test -run '^$' -bench . -benchtime 5s ./benchmarks
//
// The current figures, with the machine, date, load and command, are in
// RESULTS.md; every earlier measurement is in history/ (its README is
// the index).
// Tests never assert timings; these benchmarks are where speed is measured.
//
// It may import any package of the tree; nothing imports it.
package benchmarks

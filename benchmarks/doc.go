// Package benchmarks measures Vigil on loopback: Go benchmarks of whole
// requests through a real server, run with
//
//	go test -run '^$' -bench . -benchtime 5s ./benchmarks
//
// Results, with the machine, date and command, are kept in RESULTS.md.
// Tests never assert timings; these benchmarks are where speed is measured.
//
// It may import any package of the tree; nothing imports it.
package benchmarks

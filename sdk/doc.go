// Package sdk holds Vigil's client libraries, as files rather than Go
// code: the Python SDK in sdk/python (package vigil-sdk, import vigil).
// Its Go test installs that package with pip, type-checks it with mypy
// --strict and runs its pytest suite against a real `vigil serve`, so that
// `make test` and CI cover it.
//
// It imports nothing.
package sdk

// Package formula keeps a text cell of an exported spreadsheet (CSV or
// Excel) from being evaluated as a formula (RELIABILITY.md F20), in one
// place for every export that writes cells: the review archive and the
// reports.
//
// It imports nothing of Vigil.
package formula

import (
	"strconv"
	"strings"
)

// triggers are the leading characters on which a spreadsheet starts a
// formula (or, tab and carriage return, hides one behind white space).
const triggers = "=+-@\t\r"

// Defuse returns cell with a leading apostrophe when a spreadsheet would
// read it as a formula: when it starts with =, +, -, @, a tab or a
// carriage return. A plain decimal number ("-0.25", "+3", "1e-3") is a
// number to a spreadsheet, not a formula, and is returned as it is so that
// negative figures stay numbers.
func Defuse(cell string) string {
	if cell == "" || !strings.ContainsRune(triggers, rune(cell[0])) || number(cell) {
		return cell
	}
	return "'" + cell
}

// number reports whether s is a plain decimal number: digits, one sign,
// one point and an exponent, nothing a spreadsheet could call.
func number(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789+-.eE", r) {
			return false
		}
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

package evaluation

import (
	"bytes"
	"strconv"
	"unsafe"
)

// The decoders here read arrays of numbers from JSON that encoding/json has
// already validated (json.Unmarshal checks the whole document before it
// hands out a RawMessage or calls an UnmarshalJSON). They give exactly what
// encoding/json gives (both use strconv.ParseFloat), several times faster,
// and report ok=false on anything else (strings, null, out-of-range numbers)
// so the caller falls back to encoding/json and its messages.

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// fastNumbers parses a validated JSON array of numbers.
func fastNumbers(b []byte) ([]float64, bool) {
	v, end, ok := fastArray(b, skipSpace(b, 0), bytes.Count(b, []byte{','})+1)
	return v, ok && skipSpace(b, end) == len(b)
}

// fastArray parses the array of numbers starting at b[i] and returns the
// index just past its closing bracket.
func fastArray(b []byte, i, capHint int) ([]float64, int, bool) {
	if i >= len(b) || b[i] != '[' {
		return nil, 0, false
	}
	out := make([]float64, 0, capHint)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, i + 1, true
	}
	for i < len(b) {
		if c := b[i]; c != '-' && (c < '0' || c > '9') {
			return nil, 0, false
		}
		j := i
		for j < len(b) && isNumberByte(b[j]) {
			j++
		}
		v, err := strconv.ParseFloat(unsafe.String(&b[i], j-i), 64)
		if err != nil {
			return nil, 0, false
		}
		out = append(out, v)
		i = skipSpace(b, j)
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return out, i + 1, true
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// fastRows parses a validated JSON array of arrays of numbers.
func fastRows(b []byte) ([][]float64, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	rows := make([][]float64, 0, bytes.Count(b, []byte{']'}))
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return rows, skipSpace(b, i+1) == len(b)
	}
	width := 4
	for i < len(b) {
		row, end, ok := fastArray(b, i, width)
		if !ok {
			return nil, false
		}
		width = len(row)
		rows = append(rows, row)
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return rows, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
	return nil, false
}

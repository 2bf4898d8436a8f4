package drift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/vigilhq/vigil/platform/jsonnum"
	"github.com/vigilhq/vigil/platform/web"
)

// kind is the type of a column's values.
type kind uint8

const (
	kindNone   kind = iota // no value yet, or only missing ones
	kindNumber             // JSON numbers
	kindString             // JSON strings
	kindBool               // true and false
)

func (k kind) String() string {
	switch k {
	case kindNumber:
		return "numbers"
	case kindString:
		return "strings"
	case kindBool:
		return "booleans"
	}
	return "only missing values"
}

// column is one JSON array of feature values, read without going through
// []any: numbers straight into a []float64, strings and booleans straight
// into per-category counts. Missing values (null, "", and the NaN that
// Python's json module writes) are counted and left out.
type column struct {
	kind    kind
	nums    []float64
	index   map[string]int // category to its position in labels and counts
	labels  []string
	counts  []int
	missing int
	// first is the position of the first non-missing element, for messages.
	first int
}

// size is the number of non-missing values.
func (c *column) size() int {
	if c.kind == kindNumber {
		return len(c.nums)
	}
	n := 0
	for _, k := range c.counts {
		n += k
	}
	return n
}

// fieldError is a problem with one array: Status 400 for JSON that is not
// well formed, 422 for values of the wrong type.
type fieldError struct {
	Status int
	Reason string
}

func (e *fieldError) Error() string { return e.Reason }

func invalid(format string, args ...any) *fieldError {
	return &fieldError{Status: http.StatusUnprocessableEntity, Reason: fmt.Sprintf(format, args...)}
}

func malformed(format string, args ...any) *fieldError {
	return &fieldError{Status: http.StatusBadRequest, Reason: "malformed JSON: " + fmt.Sprintf(format, args...)}
}

// readColumn reads raw, a JSON array whose brackets Request located, with
// full checking of every element's syntax.
func readColumn(raw []byte) (column, *fieldError) {
	c := column{first: -1}
	// One value per comma and one more: exact for a column of numbers, and
	// found at memory speed.
	if raw[1] != '"' {
		c.nums = make([]float64, 0, bytes.Count(raw, []byte{','})+1)
	}
	i := web.SkipSpace(raw, 1)
	if raw[i] == ']' {
		return c, nil
	}
	for n := 0; ; n++ {
		if c.kind == kindNumber {
			var read int
			i, read = c.numbers(raw, i)
			n += read
		}
		var err *fieldError
		if i, err = c.element(raw, i, n); err != nil {
			return c, err
		}
		i = web.SkipSpace(raw, i)
		switch raw[i] {
		case ',':
			i = web.SkipSpace(raw, i+1)
		case ']':
			if i != len(raw)-1 {
				return c, malformed("data after the end of the array")
			}
			return c, nil
		default:
			return c, malformed("element %d: got %q, want , or ]", n, raw[i])
		}
	}
}

// numbers is readColumn's fast path through a column of numbers: it reads
// elements from raw[i] on while each is a finite number followed by a
// comma (jsonnum.ReadRun), and returns the index of the first element it
// leaves (the last one, or anything else) to element, with the count it
// read.
func (c *column) numbers(raw []byte, i int) (int, int) {
	start := len(c.nums)
	c.nums, i = jsonnum.ReadRun(c.nums, raw, i)
	return i, len(c.nums) - start
}

// element reads the element n starting at raw[i] and returns the index
// after it.
func (c *column) element(raw []byte, i, n int) (int, *fieldError) {
	switch b := raw[i]; {
	case b == '-' || (b >= '0' && b <= '9'):
		if i+1 < len(raw) && b == '-' && raw[i+1] == 'I' {
			return c.literal(raw, i, "-Infinity", n)
		}
		v, size, ok := jsonnum.Read(raw[i:])
		if !ok {
			return 0, malformed("element %d is not a valid number", n)
		}
		if math.IsInf(v, 0) {
			return 0, invalid("element %d (%s) is beyond the range of a 64-bit float, want a finite number", n, raw[i:i+size])
		}
		if err := c.is(kindNumber, n); err != nil {
			return 0, err
		}
		c.nums = append(c.nums, v)
		return i + size, nil
	case b == '"':
		end, escaped, ok := stringEnd(raw, i)
		if !ok {
			return 0, malformed("element %d is not a valid string", n)
		}
		s := raw[i+1 : end-1]
		if escaped {
			var dec string
			if err := json.Unmarshal(raw[i:end], &dec); err != nil {
				return 0, malformed("element %d is not a valid string", n)
			}
			s = []byte(dec)
		}
		if len(s) == 0 {
			c.missing++
			return end, nil
		}
		if err := c.is(kindString, n); err != nil {
			return 0, err
		}
		c.count(s)
		return end, nil
	case b == 't':
		return c.literal(raw, i, "true", n)
	case b == 'f':
		return c.literal(raw, i, "false", n)
	case b == 'n':
		return c.literal(raw, i, "null", n)
	case b == 'N':
		return c.literal(raw, i, "NaN", n)
	case b == 'I':
		return c.literal(raw, i, "Infinity", n)
	case b == '[' || b == '{':
		return 0, invalid("element %d is an array or object, want a number, string, boolean or null", n)
	}
	return 0, malformed("element %d: unexpected %q", n, raw[i])
}

// literal reads the word lit at raw[i]: true and false are categories,
// null and NaN missing values, ±Infinity refused.
func (c *column) literal(raw []byte, i int, lit string, n int) (int, *fieldError) {
	end := i + len(lit)
	if end > len(raw) || string(raw[i:end]) != lit {
		return 0, malformed("element %d is not a valid value", n)
	}
	switch lit {
	case "null", "NaN":
		c.missing++
	case "Infinity", "-Infinity":
		return 0, invalid("element %d is %s, want a finite number (send null or NaN for a missing value)", n, lit)
	default:
		if err := c.is(kindBool, n); err != nil {
			return 0, err
		}
		c.count(raw[i:end])
	}
	return end, nil
}

// is records that element n is of kind k, refusing a second kind.
func (c *column) is(k kind, n int) *fieldError {
	if c.kind == k {
		return nil
	}
	if c.kind != kindNone {
		return invalid("element %d is one of %s but element %d is one of %s: a column holds numbers, strings or booleans, not a mix",
			n, k, c.first, c.kind)
	}
	c.kind, c.first = k, n
	return nil
}

// count adds one to the category s.
func (c *column) count(s []byte) {
	if j, ok := c.index[string(s)]; ok {
		c.counts[j]++
		return
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	c.index[string(s)] = len(c.labels)
	c.labels = append(c.labels, string(s))
	c.counts = append(c.counts, 1)
}

// asCategories turns a numeric column into categories, one per distinct
// value, written as Go's shortest representation (1, 2.5, 1e+21).
func (c *column) asCategories() {
	if c.kind != kindNumber {
		return
	}
	nums := c.nums
	c.kind, c.nums = kindString, nil
	for _, v := range nums {
		c.count(strconv.AppendFloat(nil, v, 'g', -1, 64))
	}
}

// stringEnd returns the index after the JSON string whose opening quote is
// at b[i], whether it holds escapes (checked later by encoding/json), and
// false when it is unterminated or holds a control character.
func stringEnd(b []byte, i int) (int, bool, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

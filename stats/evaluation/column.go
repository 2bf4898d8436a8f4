package evaluation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Column is one JSON array of targets or labels: all numbers or all strings.
// The zero Column is "absent" (the field was missing or null); a present
// column may still be empty. Numbers and strings never mix in one column,
// and booleans, nulls, objects and nested arrays are rejected.
type Column struct {
	nums  []float64
	strs  []string
	isStr bool
}

// Numbers returns a numeric column backed by v (not copied). A nil v gives a
// present, empty column.
func Numbers(v ...float64) Column {
	if v == nil {
		v = []float64{}
	}
	return Column{nums: v}
}

// Strings returns a string column backed by v (not copied). A nil v gives a
// present, empty column.
func Strings(v ...string) Column {
	if v == nil {
		v = []string{}
	}
	return Column{strs: v, isStr: true}
}

// Present reports whether the column was supplied at all.
func (c Column) Present() bool { return c.nums != nil || c.strs != nil }

// IsString reports whether the column holds strings.
func (c Column) IsString() bool { return c.isStr }

// Len is the number of elements.
func (c Column) Len() int {
	if c.isStr {
		return len(c.strs)
	}
	return len(c.nums)
}

// Floats returns the numbers of a numeric column, nil for a string column.
func (c Column) Floats() []float64 { return c.nums }

// Texts returns the strings of a string column, nil for a numeric column.
func (c Column) Texts() []string { return c.strs }

// At returns element i as a Label.
func (c Column) At(i int) Label {
	if c.isStr {
		return StringLabel(c.strs[i])
	}
	return NumberLabel(c.nums[i])
}

// kind names the element type for messages.
func (c Column) kind() string {
	if c.isStr {
		return "strings"
	}
	return "numbers"
}

// MarshalJSON writes the array, or null for an absent column.
func (c Column) MarshalJSON() ([]byte, error) {
	switch {
	case !c.Present():
		return []byte("null"), nil
	case c.isStr:
		return json.Marshal(c.strs)
	default:
		return json.Marshal(c.nums)
	}
}

// UnmarshalJSON reads an array of numbers or of strings; null leaves the
// column absent. ParseRequest gives the same checks with the field named.
func (c *Column) UnmarshalJSON(data []byte) error {
	col, err := decodeColumn(data)
	if err != nil {
		return err
	}
	*c = col
	return nil
}

// decodeColumn is the fast path (a typed decode) with a slow path that finds
// the first offending element for the message.
func decodeColumn(data []byte) (Column, error) {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return Column{}, nil
	}
	if nums, ok := fastNumbers(data); ok {
		return Numbers(nums...), nil
	}
	var nums []float64
	// A numeric array can contain the letter n only inside "null".
	if err := json.Unmarshal(data, &nums); err == nil && bytes.IndexByte(data, 'n') < 0 {
		return Numbers(nums...), nil
	}
	var ptrs []*string
	if err := json.Unmarshal(data, &ptrs); err == nil {
		strs := make([]string, len(ptrs))
		for i, p := range ptrs {
			if p == nil {
				return Column{}, fmt.Errorf("element %d is null, want a string like the others", i)
			}
			strs[i] = *p
		}
		return Strings(strs...), nil
	}
	return Column{}, describeBadArray(data)
}

// describeBadArray explains why data is not an array of numbers or strings.
func describeBadArray(data []byte) error {
	var elems []any
	if err := json.Unmarshal(data, &elems); err != nil {
		return fmt.Errorf("must be an array of numbers or of strings: %w", err)
	}
	first := ""
	for i, e := range elems {
		var kind string
		switch e.(type) {
		case float64:
			kind = "number"
		case string:
			kind = "string"
		case nil:
			return fmt.Errorf("element %d is null, want a number or a string", i)
		case bool:
			return fmt.Errorf("element %d is a boolean, want a number or a string (send booleans as 0 and 1)", i)
		default:
			return fmt.Errorf("element %d is an array or object, want a number or a string", i)
		}
		if first == "" {
			first = kind
		} else if kind != first {
			return fmt.Errorf("element %d is a %s but element 0 is a %s: mix of label input types (string and number)", i, kind, first)
		}
	}
	return fmt.Errorf("must be an array of numbers or of strings")
}

// Label is one class label: a number or a string. The zero Label is the
// number 0.
type Label struct {
	num   float64
	str   string
	isStr bool
}

// NumberLabel returns a numeric label.
func NumberLabel(v float64) Label { return Label{num: v} }

// StringLabel returns a string label.
func StringLabel(s string) Label { return Label{str: s, isStr: true} }

// IsString reports whether the label is a string.
func (l Label) IsString() bool { return l.isStr }

// Float returns a numeric label's value (0 for a string label).
func (l Label) Float() float64 { return l.num }

// Text returns a string label's value ("" for a numeric label).
func (l Label) Text() string { return l.str }

// String renders the label as in JSON: strings quoted, numbers bare.
func (l Label) String() string {
	if l.isStr {
		return strconv.Quote(l.str)
	}
	return strconv.FormatFloat(l.num, 'g', -1, 64)
}

// MarshalJSON writes a JSON number or string.
func (l Label) MarshalJSON() ([]byte, error) {
	if l.isStr {
		return json.Marshal(l.str)
	}
	return json.Marshal(l.num)
}

// UnmarshalJSON reads a JSON number or string.
func (l *Label) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		*l = NumberLabel(v)
	case string:
		*l = StringLabel(v)
	default:
		return fmt.Errorf("must be a number or a string, got %s", bytes.TrimSpace(data))
	}
	return nil
}

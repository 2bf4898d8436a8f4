package web

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// Int is an integer field of a request body. It takes any JSON number
// whose value is an integer, as the document's type "integer" does (JSON
// Schema counts 247.0 and 2.47e2 as the integer 247), where a Go int
// field refuses every number written with a fraction or an exponent. A
// number with a fractional part, one beyond ±2^53 written with a fraction
// or an exponent (which float64 cannot tell from its neighbours), and any
// other JSON value answer 422 "must be of type integer" naming the field.
type Int int

// maxExact is the largest integer up to which float64 holds every integer.
const maxExact = 1 << 53

// UnmarshalJSON decodes an integer-valued number.
func (n *Int) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil // as for an int: null leaves the field alone
	}
	refuse := &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[int]()}
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		refuse.Value = "non-number"
		return refuse
	}
	if !bytes.ContainsAny(b, ".eE") {
		i, err := strconv.Atoi(string(b))
		if err != nil {
			return refuse
		}
		*n = Int(i)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxExact {
		return refuse
	}
	*n = Int(f)
	return nil
}

// Numbers is a request body's object of numbers (metric name to value).
// A null value is refused, 422 "must be of type number" naming the
// object's field, where a map[string]float64 would take it for 0: null
// stands for an absent field, and a member cannot be absent and present.
type Numbers map[string]float64

// UnmarshalJSON decodes an object of numbers.
func (m *Numbers) UnmarshalJSON(b []byte) error {
	var vals map[string]*float64
	if err := json.Unmarshal(b, &vals); err != nil || vals == nil {
		return err // or null: the field is absent
	}
	out := make(Numbers, len(vals))
	for k, v := range vals {
		x, err := nonNull(v)
		if err != nil {
			return err
		}
		out[k] = x
	}
	*m = out
	return nil
}

// Strings is a request body's array of strings. A null element is
// refused, 422 "must be of type string" naming the array's field, where a
// []string would take it for "".
type Strings []string

// UnmarshalJSON decodes an array of strings.
func (s *Strings) UnmarshalJSON(b []byte) error {
	var vals []*string
	if err := json.Unmarshal(b, &vals); err != nil || vals == nil {
		return err // or null: the field is absent
	}
	out := make(Strings, len(vals))
	for i, v := range vals {
		x, err := nonNull(v)
		if err != nil {
			return err
		}
		out[i] = x
	}
	*s = out
	return nil
}

// nonNull returns *v, or the type error of a JSON null where a T belongs
// when v is nil; encoding/json names the field in it.
func nonNull[T any](v *T) (T, error) {
	if v == nil {
		var zero T
		return zero, &json.UnmarshalTypeError{Value: "null", Type: reflect.TypeFor[T]()}
	}
	return *v, nil
}

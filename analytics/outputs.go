package analytics

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/stats/profile"
)

// Output distribution: how often a model answered each class label, per
// output field. A label is a top-level field of output_data whose value is
// a string of at most MaxLabelBytes bytes, a boolean, or a number with no
// fractional part (as in {"prediction": "approved", "class": 2}); its value
// is written as the string itself, "true"/"false", or the integer in
// decimal (1.0 and 1e0 are both "1"). Other values (fractional scores,
// objects, arrays, null, long text) are not labels: their distributions
// belong to drift profiles, not to counts. A prediction gives at most
// MaxLabels labels, its first fields in document order.
const (
	MaxLabels     = 16
	MaxLabelBytes = 128
	// MaxValues is how many values of one field a bucket keeps by name:
	// the most frequent ones (ties by value). The others are summed in
	// Other, so every field's counts still add up to the predictions that
	// gave it a label.
	MaxValues = 100
)

// Label is one class label of a prediction's output.
type Label struct {
	Field, Value string
}

// OutputLabels returns the labels of output_data, a JSON object (nil when
// it is anything else or holds none).
func OutputLabels(out json.RawMessage) []Label {
	return FieldLabels(profile.AppendFields(nil, out))
}

// PredictionLabels returns the labels of p's output_data, reading the
// fields p.Parse kept when it ran.
func PredictionLabels(p eventlog.Prediction) []Label {
	return FieldLabels(p.Fields().Output)
}

// FieldLabels returns the labels of an output_data given as its fields
// (nil when it holds none).
func FieldLabels(fs []profile.Field) []Label {
	var labels []Label
	for _, f := range fs {
		if len(labels) == MaxLabels {
			break
		}
		if v, ok := labelValue(f.Value); ok {
			labels = append(labels, Label{Field: string(f.Name), Value: v})
		}
	}
	return labels
}

// labelValue is raw's value as a label, if it is one.
func labelValue(raw json.RawMessage) (string, bool) {
	switch {
	case len(raw) == 0:
		return "", false
	case raw[0] == '"':
		s, ok := profile.Text(raw)
		if !ok || len(s) > MaxLabelBytes {
			return "", false
		}
		return string(s), true
	case string(raw) == "true" || string(raw) == "false":
		return string(raw), true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return "", false
		}
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// ValueCounts are one output field's label counts in a bucket.
type ValueCounts struct {
	Values map[string]int64 `json:"values"`
	// Other counts the labels beyond the MaxValues kept by name.
	Other int64 `json:"other"`
}

// OutputDistribution counts labels by field and value. A nil one reads as
// empty; make one to Add to it.
type OutputDistribution map[string]*ValueCounts

// Add counts n predictions that gave label l.
func (d OutputDistribution) Add(l Label, n int64) {
	c := d[l.Field]
	if c == nil {
		c = &ValueCounts{Values: map[string]int64{}}
		d[l.Field] = c
	}
	c.Values[l.Value] += n
}

// Merge adds o's counts to d's.
func (d OutputDistribution) Merge(o OutputDistribution) {
	for field, oc := range o {
		for v, n := range oc.Values {
			d.Add(Label{field, v}, n)
		}
		d[field].Other += oc.Other
	}
}

// Cap keeps the MaxValues most frequent values of each field by name and
// moves the others' counts to Other.
func (d OutputDistribution) Cap() {
	for _, c := range d {
		if len(c.Values) <= MaxValues {
			continue
		}
		type kv struct {
			v string
			n int64
		}
		all := make([]kv, 0, len(c.Values))
		for v, n := range c.Values {
			all = append(all, kv{v, n})
		}
		slices.SortFunc(all, func(a, b kv) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.v, b.v)) })
		for _, e := range all[MaxValues:] {
			c.Other += e.n
			delete(c.Values, e.v)
		}
	}
}

// Encode returns d, capped, as the JSON text the rollups store; ""
// when d is empty.
func (d OutputDistribution) Encode() ([]byte, error) {
	if len(d) == 0 {
		return []byte{}, nil
	}
	d.Cap()
	return json.Marshal(map[string]*ValueCounts(d))
}

// MergeEncoded merges a stored distribution (Encode's form; "" is
// empty) into d.
func (d OutputDistribution) MergeEncoded(text []byte) error {
	if len(text) == 0 {
		return nil
	}
	var o map[string]*ValueCounts
	if err := json.Unmarshal(text, &o); err != nil {
		return fmt.Errorf("stored output distribution: %w", err)
	}
	for field, c := range o {
		if c == nil || c.Values == nil {
			return fmt.Errorf("stored output distribution: field %q has no values", field)
		}
	}
	d.Merge(o)
	return nil
}

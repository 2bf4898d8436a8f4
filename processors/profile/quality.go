package profile

import (
	"encoding/json"
	"math"
	"strconv"
)

// Quality tallies a model's predictions against the labels they were
// logged with, so that quality metrics can be read from merged profiles
// (concept drift) without reading the predictions again. The zero Quality
// has seen no labelled prediction.
//
// Every labelled prediction counts in Labelled and, when the prediction
// equals the label, in Matched: two numbers are equal when their values
// are, a number or a boolean and a string when the string spells the same
// value ("1" and 1, "true" and true), two strings when they are the
// same. When
// both are numbers the prediction also counts in Numeric, its error in
// AbsError and SquaredError.
type Quality struct {
	Labelled int64 `json:"labelled,omitempty"`
	Matched  int64 `json:"matched,omitempty"`
	// Numeric counts the labelled predictions whose label and prediction
	// are both numbers; AbsError and SquaredError sum |prediction − label|
	// and its square over them.
	Numeric      int64   `json:"numeric,omitempty"`
	AbsError     float64 `json:"abs_error,omitempty"`
	SquaredError float64 `json:"squared_error,omitempty"`
}

// Add tallies one prediction against its label, both JSON scalars; a
// missing (empty) or null one, or an object or array, is not a labelled
// prediction and is ignored.
func (q *Quality) Add(prediction, label json.RawMessage) {
	p, pNum, pOK := scalar(prediction)
	l, lNum, lOK := scalar(label)
	if !pOK || !lOK {
		return
	}
	q.Labelled++
	if p == l {
		q.Matched++
	}
	if pNum && lNum {
		pv, _ := strconv.ParseFloat(p, 64)
		lv, _ := strconv.ParseFloat(l, 64)
		d := pv - lv
		q.Numeric++
		q.AbsError += math.Abs(d)
		q.SquaredError += d * d
	}
}

// Merge adds o's tallies to q's.
func (q *Quality) Merge(o Quality) {
	q.Labelled += o.Labelled
	q.Matched += o.Matched
	q.Numeric += o.Numeric
	q.AbsError += o.AbsError
	q.SquaredError += o.SquaredError
}

// QualityMetrics are the metrics Quality.Metric computes: accuracy and
// error_rate over the labelled predictions, mae, mse and rmse over the
// numeric ones.
var QualityMetrics = []string{"accuracy", "error_rate", "mae", "mse", "rmse"}

// Metric returns the named metric (one of QualityMetrics) and how many
// labelled predictions it is over; ok is false for another name or when
// no prediction counts.
func (q Quality) Metric(name string) (value float64, samples int64, ok bool) {
	switch name {
	case "accuracy", "error_rate":
		if q.Labelled == 0 {
			return 0, 0, false
		}
		acc := float64(q.Matched) / float64(q.Labelled)
		if name == "error_rate" {
			return 1 - acc, q.Labelled, true
		}
		return acc, q.Labelled, true
	case "mae", "mse", "rmse":
		if q.Numeric == 0 {
			return 0, 0, false
		}
		n := float64(q.Numeric)
		switch name {
		case "mae":
			return q.AbsError / n, q.Numeric, true
		case "mse":
			return q.SquaredError / n, q.Numeric, true
		}
		return math.Sqrt(q.SquaredError / n), q.Numeric, true
	}
	return 0, 0, false
}

// scalar returns a JSON scalar's comparable text: a string's value, a
// number's shortest text, true or false; num tells a number (or a string
// holding one). ok is false for missing values, null, objects and arrays.
func scalar(raw json.RawMessage) (text string, num, ok bool) {
	if len(raw) == 0 {
		return "", false, false
	}
	switch raw[0] {
	case '{', '[', 'n':
		return "", false, false
	case 't', 'f':
		return string(raw), false, true
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false, false
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64), true, true
		}
		return s, false, true
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return "", false, false
	}
	return strconv.FormatFloat(v, 'g', -1, 64), true, true
}

package profile

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
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
	// Classes counts, per class (a label or prediction's comparable
	// text), the labelled predictions that predicted it, carried it as
	// their label, or both: the confusion counts precision, recall and
	// f1_score need. At most MaxQualityClasses are kept; with more,
	// ClassesDropped counts the labelled predictions left out and those
	// metrics are not computed.
	Classes        map[string]ClassCounts `json:"classes,omitempty"`
	ClassesDropped int64                  `json:"classes_dropped,omitempty"`
}

// MaxQualityClasses is how many classes a Quality keeps counts of: a
// classifier's classes, not a regressor's values.
const MaxQualityClasses = 100

// ClassCounts are one class's confusion counts.
type ClassCounts struct {
	// Predicted counts the predictions of the class, Actual the labels,
	// Hits the predictions of the class that were right.
	Predicted int64 `json:"predicted,omitempty"`
	Actual    int64 `json:"actual,omitempty"`
	Hits      int64 `json:"hits,omitempty"`
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
	q.count(p, l)
	if pNum && lNum {
		pv, _ := strconv.ParseFloat(p, 64)
		lv, _ := strconv.ParseFloat(l, 64)
		d := pv - lv
		q.Numeric++
		q.AbsError += math.Abs(d)
		q.SquaredError += d * d
	}
}

// count adds a labelled prediction to the class counts, unless they
// overflowed.
func (q *Quality) count(pred, label string) {
	if q.ClassesDropped > 0 {
		q.ClassesDropped++
		return
	}
	if q.Classes == nil {
		q.Classes = map[string]ClassCounts{}
	}
	p, pOld := q.Classes[pred]
	l, lOld := q.Classes[label]
	fresh := 0
	if !pOld {
		fresh++
	}
	if !lOld && label != pred {
		fresh++
	}
	if len(q.Classes)+fresh > MaxQualityClasses {
		q.overflow()
		return
	}
	if pred == label {
		p.Predicted, p.Actual, p.Hits = p.Predicted+1, p.Actual+1, p.Hits+1
		q.Classes[pred] = p
		return
	}
	p.Predicted++
	l.Actual++
	q.Classes[pred], q.Classes[label] = p, l
}

// overflow drops the class counts: too many classes to be a classifier's.
func (q *Quality) overflow() {
	q.Classes = nil
	q.ClassesDropped = q.Labelled
}

// Merge adds o's tallies to q's.
func (q *Quality) Merge(o Quality) {
	q.Labelled += o.Labelled
	q.Matched += o.Matched
	q.Numeric += o.Numeric
	q.AbsError += o.AbsError
	q.SquaredError += o.SquaredError
	if q.ClassesDropped > 0 || o.ClassesDropped > 0 {
		q.overflow()
		return
	}
	for c, n := range o.Classes {
		if q.Classes == nil {
			q.Classes = map[string]ClassCounts{}
		}
		m := q.Classes[c]
		m.Predicted, m.Actual, m.Hits = m.Predicted+n.Predicted, m.Actual+n.Actual, m.Hits+n.Hits
		q.Classes[c] = m
	}
	if len(q.Classes) > MaxQualityClasses {
		q.overflow()
	}
}

// QualityMetrics are the metrics Quality.Metric computes: accuracy and
// error_rate over the labelled predictions; precision, recall and
// f1_score over them as scikit-learn's default computes them (of the
// positive class "1" or true when the classes are 0 and 1 or false and
// true, else macro-averaged over every class seen, a class never
// predicted or never labelled scoring 0); mae, mse and rmse over the
// numeric ones.
var QualityMetrics = []string{"accuracy", "error_rate", "precision", "recall", "f1_score", "mae", "mse", "rmse"}

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
	case "precision", "recall", "f1_score":
		if q.Labelled == 0 || q.ClassesDropped > 0 {
			return 0, 0, false
		}
		return q.classMetric(name), q.Labelled, true
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

// classMetric is precision, recall or f1_score from the class counts:
// the positive class's for binary classes, else the macro average.
func (q Quality) classMetric(name string) float64 {
	one := func(c ClassCounts) float64 {
		ratio := func(num, den int64) float64 {
			if den == 0 {
				return 0
			}
			return float64(num) / float64(den)
		}
		switch name {
		case "precision":
			return ratio(c.Hits, c.Predicted)
		case "recall":
			return ratio(c.Hits, c.Actual)
		}
		return ratio(2*c.Hits, c.Predicted+c.Actual)
	}
	for _, pair := range [][2]string{{"0", "1"}, {"false", "true"}} {
		binary := true
		for c := range q.Classes {
			binary = binary && (c == pair[0] || c == pair[1])
		}
		if binary {
			return one(q.Classes[pair[1]])
		}
	}
	classes := slices.Sorted(maps.Keys(q.Classes))
	var sum float64
	for _, c := range classes {
		sum += one(q.Classes[c])
	}
	return sum / float64(len(classes))
}

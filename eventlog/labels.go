package eventlog

import (
	"encoding/json"

	"github.com/vigilhq/vigil/stats/profile"
)

// PredictionField is the output_data field that holds a logged
// prediction's predicted value, by convention (bias audits can name
// another).
const PredictionField = "prediction"

// LabelFields are the fields that hold a logged prediction's ground truth,
// by convention: looked up in metadata, then input_data, in this order.
var LabelFields = []string{"label", "y_true"}

// Predicted returns the prediction's predicted value: output_data's
// PredictionField, or output_data itself when it is not an object; nil
// when an object lacks the field.
func (p Prediction) Predicted() json.RawMessage {
	if len(p.OutputData) > 0 && p.OutputData[0] != '{' {
		return p.OutputData
	}
	return field(p.OutputData, PredictionField)
}

// Label returns the prediction's ground truth: the first of LabelFields
// present, and not null, in metadata, else in input_data; nil when none
// is.
func (p Prediction) Label() json.RawMessage {
	for _, name := range LabelFields {
		for _, doc := range []json.RawMessage{p.Metadata, p.InputData} {
			if v := field(doc, name); v != nil && string(v) != "null" {
				return v
			}
		}
	}
	return nil
}

// field returns the named top-level field of a JSON object; nil when doc
// is not an object or lacks it.
func field(doc json.RawMessage, name string) json.RawMessage {
	for k, v := range profile.Fields(doc) {
		if k == name {
			return v
		}
	}
	return nil
}

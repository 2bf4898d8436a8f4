package profile

import (
	"bytes"
	"encoding/json"
	"iter"
)

// Fields yields the top-level fields of a JSON object document, as
// input_data, output_data and metadata are, in document order: each name
// with its value's JSON text. It yields nothing for a document that is not
// an object, and stops at the first malformed part.
func Fields(doc json.RawMessage) iter.Seq2[string, json.RawMessage] {
	return func(yield func(string, json.RawMessage) bool) {
		dec := json.NewDecoder(bytes.NewReader(doc))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return
			}
			name, ok := k.(string)
			if !ok {
				return
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return
			}
			if !yield(name, v) {
				return
			}
		}
	}
}

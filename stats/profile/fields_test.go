package profile

import (
	"bytes"
	"encoding/json"
	"testing"
)

// decoderFields is the reference: the top-level fields as encoding/json's
// Decoder reads them, the way Fields read them before AppendFields.
func decoderFields(doc []byte) (names []string, values []string) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return
		}
		names, values = append(names, k.(string)), append(values, string(v))
	}
	return names, values
}

var fieldDocs = []string{
	`{}`, ` { } `, `[]`, `"x"`, `1`, `null`, ``,
	`{"a":1,"b":"x","c":true,"d":false,"e":null}`,
	` {"a" : -1.5e3 , "b" : [1, "]", {"c": "}"}] ,"d":{"e":{"f":[]}}} `,
	`{"esc\"aped":"v\\\"","uni\u00e9":"\u4e09","tab\t":"a\nb"}`,
	`{"dup":1,"dup":2}`,
	`{"s":"with \\ backslash","n":12345678901234567890}`,
	`{"nested":"{\"a\":1}","arr":["a","b\"]"]}`,
	"{\"utf\":\"\xe4\xb8\x89\"}",
}

func TestAppendFieldsReadsAsEncodingJSON(t *testing.T) {
	for _, doc := range fieldDocs {
		names, values := decoderFields([]byte(doc))
		fs := AppendFields(nil, []byte(doc))
		if len(fs) != len(names) {
			t.Fatalf("%s: got %d fields, want %d", doc, len(fs), len(names))
		}
		for i, f := range fs {
			if string(f.Name) != names[i] || string(f.Value) != values[i] {
				t.Errorf("%s: field %d got %q=%s, want %q=%s", doc, i, f.Name, f.Value, names[i], values[i])
			}
		}
	}
}

func TestTextReadsAsEncodingJSON(t *testing.T) {
	for _, raw := range []string{`"plain"`, `"a\"b"`, `"\u00e9\n"`, `""`, "\"\xff\"", `"x`, `1`} {
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		got, ok := Text([]byte(raw))
		if ok != (werr == nil) || ok && string(got) != want {
			t.Errorf("Text(%s) got %q %v, want %q %v", raw, got, ok, want, werr == nil)
		}
	}
}

func FuzzAppendFields(f *testing.F) {
	for _, doc := range fieldDocs {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			AppendFields(nil, doc) // must not panic
			return
		}
		names, values := decoderFields(doc)
		fs := AppendFields(nil, doc)
		if len(fs) != len(names) {
			t.Fatalf("%s: got %d fields, want %d", doc, len(fs), len(names))
		}
		for i, fl := range fs {
			if string(fl.Name) != names[i] || string(fl.Value) != values[i] {
				t.Fatalf("%s: field %d got %q=%s, want %q=%s", doc, i, fl.Name, fl.Value, names[i], values[i])
			}
		}
	})
}

package profile

import (
	"encoding/json"
	"iter"
	"unicode/utf8"
)

// Field is one top-level field of a JSON object document: its name,
// unescaped, and its value's JSON text. Both share the document's bytes
// unless the name held escapes.
type Field struct {
	Name  []byte
	Value json.RawMessage
}

// AppendFields appends the top-level fields of a JSON object document to
// dst, in document order, and returns the extended slice. It scans the
// document once, without decoding the values, and appends nothing for a
// document that is not an object; it stops at the first malformed part.
func AppendFields(dst []Field, doc []byte) []Field {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return dst
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return dst
	}
	for i < len(doc) && doc[i] == '"' {
		end, escaped := stringEnd(doc, i)
		if end < 0 {
			return dst
		}
		name := doc[i+1 : end-1]
		if escaped || !utf8.Valid(name) {
			var s string
			if json.Unmarshal(doc[i:end], &s) != nil {
				return dst
			}
			name = []byte(s)
		}
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return dst
		}
		i = skipSpace(doc, i+1)
		vend := valueEnd(doc, i)
		if vend < 0 {
			return dst
		}
		dst = append(dst, Field{Name: name, Value: doc[i:vend:vend]})
		i = skipSpace(doc, vend)
		if i >= len(doc) || doc[i] != ',' {
			return dst
		}
		i = skipSpace(doc, i+1)
	}
	return dst
}

// Lookup returns the value of the first of fs named name; nil when none is.
func Lookup(fs []Field, name string) json.RawMessage {
	for _, f := range fs {
		if string(f.Name) == name {
			return f.Value
		}
	}
	return nil
}

// Fields yields the top-level fields of a JSON object document, as
// input_data, output_data and metadata are, in document order: each name
// with its value's JSON text. It yields nothing for a document that is not
// an object, and stops at the first malformed part.
func Fields(doc json.RawMessage) iter.Seq2[string, json.RawMessage] {
	return func(yield func(string, json.RawMessage) bool) {
		for _, f := range AppendFields(nil, doc) {
			if !yield(string(f.Name), f.Value) {
				return
			}
		}
	}
}

// Text returns the text of a JSON string value, raw with its quotes;
// ok is false when raw is not a well-formed string. A string without
// escapes is read in place, without decoding.
func Text(raw []byte) (s []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	if end, escaped := stringEnd(raw, 0); end == len(raw) && !escaped && utf8.Valid(raw[1:end-1]) {
		return raw[1 : end-1], true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return []byte(v), true
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) {
		switch doc[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string starting at doc[i]
// (a quote) and whether it holds escapes; -1 when it is not closed or
// holds a control character.
func stringEnd(doc []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(doc); j++ {
		switch c := doc[j]; {
		case c == '"':
			return j + 1, escaped
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return -1, false
		}
	}
	return -1, false
}

// valueEnd returns the index just past the JSON value starting at doc[i];
// -1 when there is none. Objects and arrays are skipped by their brackets
// (strings inside them included); scalars end at the next delimiter and
// are checked by whoever reads them.
func valueEnd(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		end, _ := stringEnd(doc, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				end, _ := stringEnd(doc, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	}
	j := i
	for j < len(doc) {
		switch doc[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return -1
}

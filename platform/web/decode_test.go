package web

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestDecodeBytes(t *testing.T) {
	type inner struct {
		Tags []string `json:"tags"`
	}
	type body struct {
		Name  string            `json:"name"`
		Count int               `json:"count"`
		Meta  map[string]string `json:"meta"`
		In    *inner            `json:"inner"`
		Raw   json.RawMessage   `json:"raw"`
	}
	cases := []struct {
		in     string
		status int
		field  string
	}{
		{`{"name": "ok", "count": 1}`, 0, ""},
		{`{"name": "a\\u0000b"}`, 0, ""}, // an escaped backslash, then the text u0000
		{`{"name": "a\u0000b"}`, 422, "name"},
		{`{"meta": {"k": "\u0000"}}`, 422, "meta.k"},
		{`{"inner": {"tags": ["x", "\u0000"]}}`, 422, "inner.tags[1]"},
		{`{"raw": {"deep": ["\\u0000"]}}`, 0, ""},
		{`{"raw": {"deep": ["\u0000"]}}`, 422, "raw"},
		{`{"name": "ok", "extra": 1}`, 422, "extra"},
		{`{"count": "one"}`, 422, "count"},
		{`{"name": }`, 400, ""},
		{`{"name": "x"} {}`, 400, ""},
		{`[]`, 400, ""},
	}
	for _, c := range cases {
		var v body
		err := DecodeBytes([]byte(c.in), &v)
		if c.status == 0 {
			if err != nil {
				t.Errorf("%s: got %v, want nil", c.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != c.status {
			t.Errorf("%s: got %v, want status %d", c.in, err, c.status)
			continue
		}
		if c.field != "" && e.Details[c.field] == nil {
			t.Errorf("%s: got details %v, want one naming %s", c.in, e.Details, c.field)
		}
	}
}

func TestHasEscapedNUL(t *testing.T) {
	for in, want := range map[string]bool{
		`"\u0000"`: true, `"x\\u0000"`: false, `"\\\u0000"`: true, `"\u00001"`: true, `"\u0001"`: false, `"\`: false, ``: false,
	} {
		if got := hasEscapedNUL([]byte(in)); got != want {
			t.Errorf("hasEscapedNUL(%s) got %v, want %v", in, got, want)
		}
	}
}

func FuzzDecodeBytes(f *testing.F) {
	f.Add([]byte(`{"name": "a\u0000", "tags": ["x"]}`))
	f.Add([]byte(`{"name": "a\\u0000"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var v struct {
			Name string         `json:"name"`
			Tags []string       `json:"tags"`
			Meta map[string]any `json:"meta"`
		}
		if err := DecodeBytes(b, &v); err == nil {
			if _, bad := nulField(reflectValue(&v), ""); bad {
				t.Fatalf("accepted %q with a NUL character", b)
			}
		}
	})
}

func reflectValue(v any) reflect.Value { return reflect.ValueOf(v) }

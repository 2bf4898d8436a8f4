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
		wantRefusal(t, c.in, DecodeBytes([]byte(c.in), &v), c.status, c.field)
	}
}

// wantRefusal fails t unless err, the answer to in, is nil for status 0,
// else an *Error of status whose details name field (when not empty), and
// returns the *Error.
func wantRefusal(t *testing.T, in string, err error, status int, field string) *Error {
	t.Helper()
	var e *Error
	switch {
	case status == 0:
		if err != nil {
			t.Errorf("%.60s: got %v, want nil", in, err)
		}
	case !errors.As(err, &e) || e.Status != status:
		t.Errorf("%.60s: got %v, want status %d", in, err, status)
	case field != "" && e.Details[field] == nil:
		t.Errorf("%.60s: got details %v, want one naming %s", in, e.Details, field)
	}
	return e
}

// TestDecodeBytesTopLevelKind: a body of another kind than the request
// answers 400 in the API's words (object), not Go's (struct, map).
func TestDecodeBytesTopLevelKind(t *testing.T) {
	f := func(body string, v any) {
		t.Helper()
		err := DecodeBytes([]byte(body), v)
		var e *Error
		if !errors.As(err, &e) || e.Status != 400 || e.Message != "request body must be a JSON object" {
			t.Errorf("%s into %T: got %v, want 400 request body must be a JSON object", body, v, err)
		}
	}
	f(`[]`, new(struct{}))
	f(`"x"`, new(struct{}))
	f(`[1]`, new(map[string]json.RawMessage))
	f(`5`, new(map[string]any))
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

func TestDecodeMembers(t *testing.T) {
	f := func(body string, ok bool, wantA string, wantB []int) {
		t.Helper()
		var a string
		var b []int
		err := DecodeMembers([]byte(body), func(name string) any {
			switch name {
			case "a":
				return &a
			case "b":
				return &b
			}
			return nil
		})
		if (err == nil) != ok {
			t.Fatalf("%s: got error %v, want ok %v", body, err, ok)
		}
		if ok && (a != wantA || !reflect.DeepEqual(b, wantB)) {
			t.Errorf("%s: got %q %v, want %q %v", body, a, b, wantA, wantB)
		}
	}
	f(`{"a":"x","b":[1,2]}`, true, "x", []int{1, 2})
	f(` { "b" : [ ] , "a" : "\u0078" } `+"\n", true, "x", []int{})
	f(`{}`, true, "", nil)
	f(`{"a":"x","a":"y"}`, false, "", nil)
	f(`{"A":"x"}`, false, "", nil)
	f(`{"c":1}`, false, "", nil)
	f(`{"a":1}`, false, "", nil)
	f(`{"b":[{"x":1}]}`, false, "", nil)
	f(`{"a":"x\u0000"}`, false, "", nil)
	f(`{"a":"x"} {}`, false, "", nil)
	f(`{"a":"x",}`, false, "", nil)
	f(`{"a":"x" "b":[]}`, false, "", nil)
	f(`{"a" "x"}`, false, "", nil)
	f(`{"a":"x"`, false, "", nil)
	f(`[]`, false, "", nil)
	f(`null`, false, "", nil)
	f(``, false, "", nil)
}

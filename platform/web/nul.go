package web

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Text never carries U+0000: PostgreSQL cannot store it, and no real name,
// tag or description needs it. It is refused where requests enter, the same
// on every engine.

const nulProblem = "must not contain the NUL character (U+0000)"

// hasEscapedNUL reports whether JSON text holds a \u0000 escape. (A raw NUL
// byte is not valid JSON and fails decoding on its own.)
func hasEscapedNUL(body []byte) bool {
	for i := bytes.IndexByte(body, '\\'); i >= 0 && i+1 < len(body); {
		if body[i+1] == 'u' && i+6 <= len(body) && string(body[i+2:i+6]) == "0000" {
			return true
		}
		// Skip the escaped character, then find the next backslash.
		next := bytes.IndexByte(body[i+2:], '\\')
		if next < 0 {
			return false
		}
		i += 2 + next
	}
	return false
}

// rawMessage is the type of JSON text kept undecoded.
var rawMessage = reflect.TypeFor[json.RawMessage]()

// nulField returns the JSON path of the first string in v holding U+0000;
// for JSON text kept undecoded (json.RawMessage), the path of the text.
func nulField(v reflect.Value, path string) (string, bool) {
	if v.Type() == rawMessage {
		return path, hasEscapedNUL(v.Bytes())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return nulField(v.Elem(), path)
	case reflect.String:
		return path, strings.IndexByte(v.String(), 0) >= 0
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" || !t.Field(i).IsExported() {
				continue
			}
			if p, ok := nulField(v.Field(i), join(path, name)); ok {
				return p, true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k := it.Key()
			if k.Kind() == reflect.String && strings.IndexByte(k.String(), 0) >= 0 {
				return path, true
			}
			if p, ok := nulField(it.Value(), join(path, k.String())); ok {
				return p, true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, ok := nulField(v.Index(i), path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	return "", false
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// checkNUL answers 422 naming the field of v that holds U+0000.
func checkNUL(body []byte, v any) error {
	if !hasEscapedNUL(body) {
		return nil
	}
	field, ok := nulField(reflect.ValueOf(v), "")
	if !ok {
		return nil
	}
	if field == "" {
		field = "body"
	}
	return Invalid(field, nulProblem)
}

// rejectNUL answers 400 for a query parameter or path holding U+0000
// (sent as %00).
func rejectNUL(c *fiber.Ctx) error {
	if strings.Contains(c.Path(), "%00") {
		return BadRequest("the path " + nulProblem)
	}
	var bad string
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if bad == "" && (bytes.IndexByte(k, 0) >= 0 || bytes.IndexByte(v, 0) >= 0) {
			bad = string(bytes.ReplaceAll(k, []byte{0}, nil))
		}
	})
	if bad != "" {
		return &Error{Status: 400, Code: CodeBadRequest, Message: "query parameter " + nulProblem,
			Details: map[string]any{bad: nulProblem}}
	}
	return c.Next()
}

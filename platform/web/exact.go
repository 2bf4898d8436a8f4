package web

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// encoding/json and goccy/go-json match an object's keys to struct fields
// case-insensitively (LATENCY_MS fills latency_ms), but the API takes its
// field names exactly as written: after a decode, exactNames walks the
// body's keys against the type and refuses, like an unknown field, the
// first key that names a field only case-insensitively.

// shape is what of a JSON value decoded into a Go type is checked: a
// struct's keys, with the shape of each field's value, or the elements of
// a slice or array. A nil shape is not looked into: a map (whose keys are
// data) of values not looked into, an interface, a json.RawMessage, a type that decodes itself, or
// one without a struct inside.
type shape struct {
	fields map[string]*shape // a struct: its fields by exact JSON name
	elem   *shape            // a slice or array: its elements
	values *shape            // a map: its values (its keys are data)
}

// shapes caches the shape of each type checked (a *shape, nil included).
var shapes sync.Map

// shapeOf returns the cached shape of t, building it on first use.
func shapeOf(t reflect.Type) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	s, _ := shapes.LoadOrStore(t, buildShape(t, map[reflect.Type]*shape{}))
	return s.(*shape)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether t, or a pointer to it, has its own
// UnmarshalJSON or UnmarshalText (json.RawMessage among them).
func decodesItself(t reflect.Type) bool {
	for _, u := range []reflect.Type{unmarshalerType, textUnmarshalerType} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return true
		}
	}
	return false
}

// buildShape builds the shape of t; building holds the structs being
// built, so that a type holding itself (through a slice or pointer) ends.
func buildShape(t reflect.Type, building map[reflect.Type]*shape) *shape {
	for t.Kind() == reflect.Pointer && !decodesItself(t) {
		t = t.Elem()
	}
	if decodesItself(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if e := buildShape(t.Elem(), building); e != nil {
			return &shape{elem: e}
		}
	case reflect.Map:
		if v := buildShape(t.Elem(), building); v != nil {
			return &shape{values: v}
		}
	case reflect.Struct:
		if s, ok := building[t]; ok {
			return s
		}
		s := &shape{fields: map[string]*shape{}}
		building[t] = s
		addFields(s, t, building)
		return s
	}
	return nil
}

// addFields adds the fields of struct t to s as encoding/json names them:
// the json tag's name, else the Go name; never a field tagged "-" or
// unexported; the fields of an embedded struct without a tag name as if
// they were t's, after t's own, which win over theirs.
func addFields(s *shape, t reflect.Type, building map[reflect.Type]*shape) {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			embedded = append(embedded, ft)
			continue
		}
		if !f.IsExported() && !(f.Anonymous && ft.Kind() == reflect.Struct) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := s.fields[name]; !ok {
			s.fields[name] = buildShape(f.Type, building)
		}
	}
	for _, et := range embedded {
		addFields(s, et, building)
	}
}

// exactNames answers 422 naming the first key of body, the JSON text v
// was decoded from, that matches a field of v's type only
// case-insensitively: the key as sent, after the path of the fields (and
// [index]) holding it, as checkNUL names a field.
func exactNames(body []byte, v any) error {
	s := shapeOf(reflect.TypeOf(v))
	if s == nil {
		return nil
	}
	if field, bad := (&keyScanner{b: body}).value(s); bad {
		return Invalid(field, "is not an accepted field")
	}
	return nil
}

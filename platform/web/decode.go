package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	gojson "github.com/goccy/go-json"
	"github.com/gofiber/fiber/v2"
)

// Decode reads the request body as JSON into v. Malformed JSON answers 400;
// a field of the wrong type or one that v does not have answers 422 naming
// the field, so a misspelt or forbidden field (org_id, role, ...) is never
// silently dropped.
func Decode(c *fiber.Ctx, v any) error {
	return DecodeBody(c.Body(), v)
}

// DecodeBody is Decode for a request body read already: an empty or blank
// one answers 400.
func DecodeBody(body []byte, v any) error {
	switch b := bytes.TrimSpace(body); {
	case len(b) == 0:
		return BadRequest("request body is empty; send a JSON object")
	case string(b) == "null":
		// It would decode into nothing and pass for {}.
		return BadRequest("request body must be a JSON object")
	}
	return DecodeBytes(body, v)
}

// DecodeMembers decodes body, a JSON object, in one pass with
// goccy/go-json: the value of each member into what into returns for its
// name (a pointer), as DecodeBytes decodes. It is the fast path of a
// caller that reads an object's members itself (ingest's batches), whose
// errors are not for the client: it refuses a body that is not one
// object, that names a member twice or one that into has no value for
// (nil), whose values do not decode, that holds the \u0000 escape
// anywhere, or a key that names a field only case-insensitively (as
// DecodeBytes does). The caller then reads the body its exact way, which tells the
// client what is wrong.
func DecodeMembers(body []byte, into func(name string) any) error {
	if hasEscapedNUL(body) {
		return errors.New("decode members: the body holds the \\u0000 escape")
	}
	dec := gojson.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := wantDelim(dec, '{'); err != nil {
		return err
	}
	var seen []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("decode members: %w", err)
		}
		name, _ := tok.(string)
		v := into(name)
		switch {
		case v == nil:
			return fmt.Errorf("decode members: no value for member %q", name)
		case slices.Contains(seen, name):
			return fmt.Errorf("decode members: member %q twice", name)
		}
		seen = append(seen, name)
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("decode members: %s: %w", name, err)
		}
	}
	if err := wantDelim(dec, '}'); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ErrTrailingData
	}
	return exactMembers(body, seen, into)
}

// exactMembers refuses the first key in the values of body's members,
// named seen, that matches a field of what into has for the member only
// case-insensitively (see exactNames).
func exactMembers(body []byte, seen []string, into func(name string) any) error {
	sh := &shape{fields: make(map[string]*shape, len(seen))}
	for _, name := range seen {
		sh.fields[name] = shapeOf(reflect.TypeOf(into(name)))
	}
	if field, bad := (&keyScanner{b: body}).value(sh); bad {
		return fmt.Errorf("decode members: %q is not an accepted field", field)
	}
	return nil
}

// wantDelim reads delim, the next token of dec.
func wantDelim(dec *gojson.Decoder, delim json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("decode members: want %v: %w", delim, err)
	}
	if tok != delim {
		return fmt.Errorf("decode members: got %v, want %v", tok, delim)
	}
	return nil
}

// DecodeBytes is Decode for a byte slice; v points to a zero value, as it
// does for every caller.
//
// It decodes with github.com/goccy/go-json, the fastest decoder that
// decodes as encoding/json does (benchmarks/history/issue-03.md, "JSON decoders"):
// it accepts the same bodies and decodes them to the same values, which
// the differential tests (decode_std_test.go, webtest) hold it to. Its
// refusals differ in detail: a type error names the field with indexes
// and map keys (predictions.3.latency_ms where encoding/json says
// predictions.latency_ms), and an unknown field is reported before a type
// error earlier in the body. So a body that goccy refuses is decoded again
// from the zero value with encoding/json (DecodeBytesStd), whose answer is
// the answer: every refusal keeps its status, message and field, and a
// body that goccy alone refused would still be accepted. Refusals cost
// the second decode; accepted bodies, nearly all of them, do not.
//
// Unlike both libraries, it takes field names exactly as written: a key
// that matches a field only case-insensitively (LATENCY_MS for latency_ms)
// is refused as an unknown field is (exactNames), the one answer in which
// it differs from DecodeBytesStd.
func DecodeBytes(body []byte, v any) error {
	if err := decodeGoccy(body, v); err != nil {
		if p := reflect.ValueOf(v); p.Kind() == reflect.Pointer && !p.IsNil() {
			p.Elem().SetZero()
		}
		if err := decodeStd(body, v); err != nil {
			return err
		}
	}
	if err := exactNames(body, v); err != nil {
		return err
	}
	return checkNUL(body, v)
}

// decodeGoccy decodes body into v with goccy/go-json as DecodeBytesStd
// does with encoding/json. Strings are copied out of the body (goccy's
// default), which fiber reuses after the request.
//
// A body of up to maxUnmarshalBody is decoded at once (Unmarshal, on a
// context goccy pools), where a Decoder over a reader cost six allocations
// a request; the one value and nothing but whitespace after it, as
// DecodeOne checks. A larger body goes through a Decoder: Unmarshal copies
// the body into a buffer its pooled context keeps, and a context that held
// a 50 MB drift body would keep that buffer for as long as small requests
// kept reusing it.
func decodeGoccy(body []byte, v any) error {
	if len(body) > maxUnmarshalBody {
		return DecodeOne(gojson.NewDecoder(bytes.NewReader(body)), v)
	}
	return gojson.UnmarshalWithOption(body, v, disallowUnknownFields)
}

// maxUnmarshalBody is the largest body decodeGoccy decodes with Unmarshal.
const maxUnmarshalBody = 64 << 10

// disallowUnknownFields makes goccy's Unmarshal refuse a key that matches
// no field, as Decoder.DisallowUnknownFields does: goccy exports the
// option for its Decoder alone, so this sets its flag (1<<4,
// DisallowUnknownFieldsOption of goccy's internal/decoder).
// TestDecodeGoccyRefusesUnknownFields fails should a new goccy move it.
func disallowUnknownFields(o *gojson.DecodeOption) { o.Flags |= 1 << 4 }

// StreamDecoder is the Decoder of encoding/json, and of the libraries that
// copy its API (goccy/go-json).
type StreamDecoder interface {
	DisallowUnknownFields()
	Decode(v any) error
	Token() (json.Token, error)
}

// DecodeOne decodes the one JSON value that dec reads into v as
// DecodeBytes does, with unknown fields refused and nothing but whitespace
// after the value (else ErrTrailingData), and returns the library's own
// error: how benchmarks/jsondecode_test.go runs each candidate decoder.
func DecodeOne(dec StreamDecoder, v any) error {
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ErrTrailingData
	}
	return nil
}

// ErrTrailingData is data after the JSON value, which DecodeBytes answers
// 400.
var ErrTrailingData = errors.New("unexpected data after the JSON value")

// DecodeBytesStd is DecodeBytes with encoding/json alone, field names
// matched case-insensitively as encoding/json does: the answer DecodeBytes
// gives for a body goccy/go-json refuses, and the reference the
// differential tests compare DecodeBytes with.
func DecodeBytesStd(body []byte, v any) error {
	if err := decodeStd(body, v); err != nil {
		return err
	}
	return checkNUL(body, v)
}

// decodeStd decodes body into v with encoding/json and answers its
// refusal.
func decodeStd(body []byte, v any) error {
	if err := DecodeOne(json.NewDecoder(bytes.NewReader(body)), v); err != nil {
		return decodeError(err)
	}
	return nil
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, ErrTrailingData):
		return BadRequest("malformed JSON: " + err.Error())
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Status: 400, Code: CodeBadRequest, Message: "malformed JSON: " + err.Error(), Err: err}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return BadRequest("request body must be a JSON " + jsonType(typ.Type.Kind().String()))
		}
		return Invalid(field, "must be of type "+jsonType(typ.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return Invalid(field, "is not an accepted field")
	}
	return &Error{Status: 400, Code: CodeBadRequest, Message: "malformed JSON: " + err.Error(), Err: err}
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "map", "struct":
		return "object"
	case "slice", "array":
		return "array"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	}
	return kind
}

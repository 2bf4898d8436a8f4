package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Decode reads the request body as JSON into v. Malformed JSON answers 400;
// a field of the wrong type or one that v does not have answers 422 naming
// the field, so a misspelt or forbidden field (org_id, role, ...) is never
// silently dropped.
func Decode(c *fiber.Ctx, v any) error {
	body := c.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return BadRequest("request body is empty; send a JSON object")
	}
	return DecodeBytes(body, v)
}

// DecodeBytes is Decode for a byte slice.
func DecodeBytes(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return BadRequest("malformed JSON: unexpected data after the JSON value")
	}
	return checkNUL(body, v)
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Status: 400, Code: CodeBadRequest, Message: "malformed JSON: " + err.Error(), Err: err}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return BadRequest("request body must be a JSON " + typ.Type.Kind().String())
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

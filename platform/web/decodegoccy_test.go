package web

import (
	"strings"
	"testing"
)

// TestDecodeGoccyRefusesUnknownFields: goccy's Unmarshal with
// disallowUnknownFields refuses a key that names no field, nested too, and
// takes the fields there are; so does its Decoder, for a larger body.
func TestDecodeGoccyRefusesUnknownFields(t *testing.T) {
	type inner struct {
		A int `json:"a"`
	}
	type doc struct {
		In inner `json:"in"`
		B  int   `json:"b"`
	}
	pad := strings.Repeat(" ", maxUnmarshalBody) // through the Decoder
	for body, wantErr := range map[string]bool{
		`{"in":{"a":1},"b":2}`: false,
		`{"c":1}` + pad:        true,
		`{"b":2}` + pad:        false,
		`{"b":2} x` + pad:      true,
		`{"c":1}`:              true,
		`{"in":{"z":1}}`:       true,
		`{"b":2} x`:            true,
		`{"b":2} `:             false,
	} {
		var v doc
		if err := decodeGoccy([]byte(body), &v); (err != nil) != wantErr {
			t.Errorf("%.40q: got error %v, want one: %v", body, err, wantErr)
		}
	}
}

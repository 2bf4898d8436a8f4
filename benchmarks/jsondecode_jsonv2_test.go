//go:build goexperiment.jsonv2

package benchmarks

import (
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"maps"
	"strings"
)

// With GOEXPERIMENT=jsonv2, encoding/json/v2 is a candidate too, and
// encoding/json is the v1 API on the v2 implementation, so it is named
// apart from the encoding/json of the default build.
func init() {
	jsonDecoders[0].name = "encoding-json-on-v2"
	jsonDecoders = append(jsonDecoders, jsonDecoder{name: "json-v2", decode: decodeV2, answer: answerV2})
	// web.DecodeBytes answers a body goccy refuses as encoding/json does,
	// which is then the one on v2.
	maps.Copy(deviations["vigil"], deviations["encoding-json-on-v2"])
}

// decodeV2 is DecodeBytes with encoding/json/v2. Unmarshal refuses data
// after the value, invalid UTF-8 and duplicate names by default, and
// matches names case-sensitively.
func decodeV2(body []byte, v any) error {
	return jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true))
}

// answerV2 answers a SemanticError with its JSON pointer as a field path:
// the pointer of an unknown member names the member, that of a type error
// the value.
func answerV2(err error) string {
	var sem *jsonv2.SemanticError
	if !errors.As(err, &sem) {
		return "400"
	}
	if errors.Is(err, jsonv2.ErrUnknownName) || sem.GoType != nil {
		return typeAnswer(fieldPath(sem.JSONPointer))
	}
	return "400"
}

// fieldPath writes a JSON pointer (/predictions/3/latency_ms) in the
// notation of Vigil's 422 answers (predictions[3].latency_ms). An
// all-digit token is taken for an array index.
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		switch {
		case tok != "" && strings.Trim(tok, "0123456789") == "":
			b.WriteString("[" + tok + "]")
		case b.Len() > 0:
			b.WriteString("." + tok)
		default:
			b.WriteString(tok)
		}
	}
	return b.String()
}

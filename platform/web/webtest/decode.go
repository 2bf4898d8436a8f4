// Package webtest holds the differential test of web.DecodeBytes, for the
// tests of the packages whose request types it decodes: DecodeBytes
// (github.com/goccy/go-json) must answer every body as DecodeBytesStd
// (encoding/json, what DecodeBytes was before) does, but for the keys
// that match a field only case-insensitively, which DecodeBytes alone
// refuses (SameAsStd).
//
// It imports platform/web alone.
package webtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/web"
)

// SameAsStd fails t unless web.DecodeBytes answers body as
// web.DecodeBytesStd does, for a value of each type that newValues make
// (each returns a pointer to a new zero value): both accept body and decode
// it to deeply equal values, or both refuse it with the same status, code,
// message and details.
//
// Except, deliberately, for a key that matches a field's name only
// case-insensitively, which encoding/json takes for the field and
// DecodeBytes refuses: there the oracle is foldedKeys. DecodeBytes must
// refuse such a body with 422 naming one of the keys foldedKeys finds,
// whatever encoding/json answers (nothing, or a NUL character after it),
// and must accept no body in which foldedKeys finds one.
func SameAsStd(t testing.TB, body []byte, newValues ...func() any) {
	t.Helper()
	for _, newValue := range newValues {
		got, want := newValue(), newValue()
		gotErr, wantErr := web.DecodeBytes(body, got), web.DecodeBytesStd(body, want)
		folded, unsure, decoded := stdFolded(body, newValue())
		if field, ok := foldedRefusal(gotErr); ok && decoded {
			if !slices.Contains(folded, field) && !under(field, unsure) {
				t.Errorf("%T from %.300q: got %s refused as case-folded, want one of %q", want, body, field, folded)
			}
			continue
		}
		switch {
		case gotErr == nil && wantErr == nil:
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%T from %.300q: got %+v, want %+v as encoding/json decodes it", want, body, got, want)
			}
			if len(folded) > 0 {
				t.Errorf("%T from %.300q: got accepted, want %q refused as case-folded", want, body, folded)
			}
		case gotErr == nil || wantErr == nil:
			t.Errorf("%T from %.300q: got error %v, want %v as encoding/json answers", want, body, gotErr, wantErr)
		default:
			if g, w := answer(gotErr), answer(wantErr); !reflect.DeepEqual(g, w) {
				t.Errorf("%T from %.300q: got answer %+v, want %+v as encoding/json answers", want, body, g, w)
			}
		}
	}
}

// stdFolded decodes body into v with encoding/json alone, as DecodeBytes
// decodes it but for the checks of its own (names, NUL), and returns
// foldedKeys of it; decoded is false when encoding/json refuses body or
// foldedKeys cannot tell.
func stdFolded(body []byte, v any) (folded, unsure []string, decoded bool) {
	if web.DecodeOne(json.NewDecoder(bytes.NewReader(body)), v) != nil {
		return nil, nil, false
	}
	return foldedKeys(body, v)
}

// foldedRefusal returns the field of err when it is the refusal of an
// unknown or case-folded key: a 422 with the one detail "is not an
// accepted field".
func foldedRefusal(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	a := answer(err)
	if a.Status != 422 || len(a.Details) != 1 {
		return "", false
	}
	for field, problem := range a.Details {
		return field, problem == "is not an accepted field"
	}
	return "", false
}

// answer is what the client sees of a decoding error.
func answer(err error) web.Error {
	var e *web.Error
	if !errors.As(err, &e) {
		return web.Error{Message: "not a *web.Error: " + err.Error()}
	}
	return web.Error{Status: e.Status, Code: e.Code, Message: e.Message, Details: e.Details}
}

// Bodies are bodies on which JSON decoders have been seen to differ from
// encoding/json (benchmarks/jsondecode_test.go), with the names of the
// request fields: the seeds of the differential fuzz tests and the cases
// of their table tests. Each is one line of the constant below.
func Bodies() [][]byte {
	var out [][]byte
	for line := range strings.SplitSeq(strings.TrimSpace(bodies), "\n") {
		out = append(out, []byte(unescape(line)))
	}
	return out
}

// unescape turns the \xNN of a line of bodies into the byte NN, for the
// bytes that cannot be written in a Go raw string: NUL, invalid UTF-8 and
// control characters.
func unescape(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]) {
			b.WriteByte(hexValue(line[i+2])<<4 | hexValue(line[i+3]))
			i += 3
			continue
		}
		b.WriteByte(line[i])
	}
	return b.String()
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func hexValue(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// bodies is one body a line; \xNN is the byte NN (see unescape).
const bodies = `
{}
null
 null 
[]
[{"model_id":"m"}]
"m"
5
true
{"model_id":"m"}{}
{"model_id":"m"} x
{"model_id":"m"}]
{}}
{"model_id":"m"}\x0a
{}\x00
\x00{}
\x0c{}
{}\x0b
{"model_id":"a\x00b"}
{"model_id":"a\u0000b"}
{"model_id":"a\\u0000b"}
{"metadata":{"k\u0000":"v"}}
{"input_data":{"k":"v\u0000"}}
{"input_data":{"k\u0000":1},"input_data":{}}
{"prediction_id":"a\u0000","prediction_id":"b"}
{"model_id":"a\xffb"}
{"input_data":{"k\xfe":"v\xc3"}}
{"metadata":{"k\xfe":"v\xc3"}}
{"model_id":"\ud800"}
{"model_id":"\ud800\udc00x\udfff\ud83d\ude00"}
{"model_id":"\u00e9\/\"\\\b\f\n\r\t"}
{"model_id":"a\x"}
{"model_id":"a\u12"}
{"model_id":"a\x09b"}
{"model\u005fid":"m"}
{"MODEL_ID":"m","Input_Data":{},"LATENCY_MS":1}
{"model\u005fID":"m","input\u005fdata":{"Input_Data":1}}
{"tokens":{"Prompt_Tokens":1}}
{"tokens":{"prompt_tokens":1},"Tokens":{"Prompt_Tokens":2}}
{"tokens":{"Prompt_Tokens":"x"}}
{"Model_ID":"a\u0000"}
{"model_id":"m","predictions":[{},{"LATENCY_MS":1}]}
{"model_id":"m","predictions":[{"latency_ms":1,"Latency_MS":1,"latency_ms":2}]}
{"latency_m\u017f":1,"to\u212aens":{},"co\u017ft":1,"metric_type":"\u212a"}
{"model_id":5}
{"model_id":5,"extra":1}
{"extra":1,"model_id":5}
{"model_id":"m","org_id":"o"}
{"model_id":"m","model_id":5}
{"model_id":5,"model_id":"m"}
{"model_id":null}
{"model_id":true}
{"model_id":{}}
{"model_id":[]}
{"latency_ms":"fast"}
{"latency_ms":null}
{"latency_ms":1e400}
{"latency_ms":-1e400}
{"latency_ms":1e-400}
{"latency_ms":-0}
{"latency_ms":1E+2}
{"latency_ms":0.1000000000000000055511151231257827}
{"latency_ms":12345678901234567890123}
{"latency_ms":01}
{"latency_ms":1.}
{"latency_ms":-}
{"latency_ms":.5}
{"latency_ms":1e}
{"latency_ms":+1}
{"latency_ms":NaN}
{"latency_ms":1,"latency_ms":2}
{"value":1.5,"value":null}
{"limit":1e2}
{"limit":1.5}
{"limit":-0}
{"limit":99999999999999999999}
{"limit":-9223372036854775809}
{"limit":9223372036854775807}
{"expires_in_days":"30"}
{"tokens":{"prompt_tokens":1.5}}
{"tokens":{"prompt_tokens":1e2}}
{"tokens":{"prompt_tokens":"1"}}
{"tokens":{"prompt_tokens":null}}
{"tokens":{"prompt_tokens":1,"extra":2}}
{"tokens":{"prompt_tokens":1},"tokens":{"completion_tokens":2}}
{"tokens":[]}
{"tokens":null}
{"input_data":null}
{"input_data":[1],"output_data":"x"}
{"input_data": { "z" : 1E+2 , "a":"\u00e9\/\"" ,"n":[ 1.50, -0, null ]} ,"output_data":{}}
{"input_data":{"a":1,"a":2}}
{"input_data":{"x":-1e400}}
{"input_data":{"id":12345678901234567890123,"p":0.1000000000000000055511151231257827}}
{"input_data":{"a":[1,{"b":1e999}]}}
{"metadata":{"a":1e400}}
{"metadata":{"a":[1,{"b":1e999}]}}
{"metadata":{"a":1},"metadata":{"b":2}}
{"metadata":null}
{"metadata":[]}
{"metadata":"x"}
{"baseline_metrics":{"a":"x"}}
{"baseline_metrics":{"a":1},"baseline_metrics":{"b":2}}
{"baseline_metrics":{"a":1e400}}
{"tags":[1]}
{"tags":["a",2]}
{"tags":["a"],"tags":["b","c"]}
{"tags":null}
{"tags":"a"}
{"scopes":["a",null]}
{"features":[]}
{"features":null}
{"protected_groups":{"g":["a"]}}
{"model_id":"m","predictions":[{"prediction_id":"p","input_data":{"a":1},"output_data":{"b":true},"latency_ms":2,"metadata":{}}]}
{"model_id":"m","predictions":[{},{"latency_ms":"fast"}]}
{"model_id":"m","predictions":[{},{"extra":1}]}
{"model_id":"m","predictions":[{}],"predictions":[{"prediction_id":"p"}]}
{"model_id":"m","metrics":[{"metric_type":"f1","value":0.5}]}
{"model_id":"m","predictions":null}
{"model_id":"m","predictions":{}}
{"model_id":"m","predictions":[1,"x",null]}
{"model_id":"m","Predictions":[]}
{"y_true":[1,0],"y_pred":[1,1],"metric_types":["accuracy"]}
{"username":"u","password":"p","email":"e@x","full_name":"F","organization_name":"o","role":"viewer"}
{"name":"n","description":"d","permissions":["models:read"],"scopes":["read"],"expires_in_days":30}
{"name":"churn","model_type":"tabular","framework":"sklearn","version":"1","metadata":{"a":1},"baseline_metrics":{"accuracy":0.9},"monitoring_config":{},"tags":["x"]}
{"description":"d","status":"active","target_variable":"y","model_framework":"f","fairness_attributes":["a"]}
{"model_id":"m","start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-02T00:00:00Z","limit":10,"offset":0}
{"provider":"openai","model_name":"gpt","prompt":"hi","completion":"hello","tokens":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8},"latency_ms":420,"cost":0.0002}
{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}}}}}}}
{"model_id":"m","predictions":[{"prediction_id":"p"
`

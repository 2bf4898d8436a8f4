package eventlog

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// AppendJSON appends p as encoding/json.Marshal writes it, byte for byte,
// without reflection and, for the usual prediction (ids of printable
// ASCII but for " \ < > &, compact documents), without allocating: the
// answer of POST /predictions/log and each object of a JSON export.
func (p Prediction) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	if p.OrgID != "" {
		dst = append(dst, `"org_id":`...)
		dst = appendJSONString(dst, p.OrgID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"model_id":`...)
	dst = appendJSONString(dst, p.ModelID)
	dst = append(dst, `,"prediction_id":`...)
	dst = appendJSONString(dst, p.PredictionID)
	for _, d := range [...]struct {
		name string
		doc  json.RawMessage
	}{{`,"input_data":`, p.InputData}, {`,"output_data":`, p.OutputData}} {
		b, err := jsonDocument(d.doc)
		if err != nil {
			return nil, err
		}
		dst = append(append(dst, d.name...), b...)
	}
	dst = append(dst, `,"latency_ms":`...)
	if p.LatencyMS == nil {
		dst = append(dst, "null"...)
	} else {
		var err error
		if dst, err = appendJSONFloat(dst, *p.LatencyMS); err != nil {
			return nil, err
		}
	}
	b, err := jsonDocument(p.Metadata)
	if err != nil {
		return nil, err
	}
	dst = append(append(dst, `,"metadata":`...), b...)
	dst = append(dst, `,"timestamp":`...)
	if dst, err = appendJSONTime(dst, p.Timestamp); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// jsonDocument is doc as encoding/json writes a json.RawMessage (document),
// or Marshal's error for a doc that is not JSON.
func jsonDocument(doc json.RawMessage) ([]byte, error) {
	if len(doc) > 0 && !json.Valid(doc) {
		return nil, fmt.Errorf("encode json: a document is not valid JSON")
	}
	return document(doc)
}

// appendJSONString appends s quoted as encoding/json writes a string. A
// string that needs no escape (printable ASCII but for " \ < > &) is
// copied; any other goes through encoding/json.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	return append(append(append(dst, '"'), s...), '"')
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 on, the exponent without a leading zero.
func appendJSONFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("encode json: unsupported value: %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-09 is written e-9
		dst = dst[:n-1]
	}
	return dst, nil
}

// appendJSONTime appends t as time.Time's MarshalJSON writes it: RFC 3339
// with nanoseconds, quoted. A time in UTC within the years 0 to 9999 is
// formatted here; any other goes through MarshalJSON, whose errors (a
// year or zone offset RFC 3339 cannot write) are returned.
func appendJSONTime(dst []byte, t time.Time) ([]byte, error) {
	if _, off := t.Zone(); off != 0 || t.Year() < 0 || t.Year() > 9999 {
		b, err := t.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encode json: %w", err)
		}
		return append(dst, b...), nil
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), nil
}

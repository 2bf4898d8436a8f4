package otlp

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Formats of a request body, and of the answer to it.
const (
	Protobuf = "application/x-protobuf"
	JSON     = "application/json"
)

// ErrMediaType is the error of a Content-Type that is neither Protobuf
// nor JSON.
var ErrMediaType = errors.New("unsupported media type")

// ErrTooLarge is the error of a gzipped body that inflates past the limit.
var ErrTooLarge = errors.New("the inflated body is too large")

// Format returns the format a Content-Type names: Protobuf or JSON, any
// parameters ignored; ErrMediaType for any other.
func Format(contentType string) (string, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrMediaType, contentType)
	}
	switch strings.ToLower(mt) {
	case Protobuf:
		return Protobuf, nil
	case JSON:
		return JSON, nil
	}
	return "", fmt.Errorf("%w: %q", ErrMediaType, contentType)
}

// Inflate returns body as sent under Content-Encoding encoding: gzip is
// inflated up to limit bytes (ErrTooLarge past it), identity or none is
// body itself.
func Inflate(body []byte, encoding string, limit int64) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return body, nil
	case "gzip":
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q: send gzip or none", encoding)
	}
	r, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if int64(len(out)) > limit {
		return nil, ErrTooLarge
	}
	return out, nil
}

// Decode reads an ExportTraceServiceRequest in format. JSON is OTLP's
// JSON mapping: lowerCamelCase or original field names, trace and span
// ids in hex (not base64, as protobuf's own JSON mapping has them), 64-bit
// integers as strings or numbers, enums as integers; unknown fields are
// ignored, as OTLP asks of receivers.
func Decode(body []byte, format string) (*coltracepb.ExportTraceServiceRequest, error) {
	req := &coltracepb.ExportTraceServiceRequest{}
	if format == Protobuf {
		if err := proto.Unmarshal(body, req); err != nil {
			return nil, fmt.Errorf("protobuf: %w", err)
		}
		return req, nil
	}
	body, err := hexIDsToBase64(body)
	if err != nil {
		return nil, err
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, req); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	return req, nil
}

// Encode writes the answer in format.
func Encode(resp *coltracepb.ExportTraceServiceResponse, format string) ([]byte, error) {
	if format == Protobuf {
		return proto.Marshal(resp)
	}
	return protojson.Marshal(resp)
}

// idFields are the members that hold ids as bytes, which OTLP's JSON
// writes in hex.
var idFields = map[string]bool{"traceId": true, "trace_id": true, "spanId": true, "span_id": true,
	"parentSpanId": true, "parent_span_id": true}

// hexIDsToBase64 rewrites the hex ids of an OTLP JSON body as base64, so
// that protojson reads them; any other value is left as it is.
func hexIDsToBase64(body []byte) ([]byte, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	if d.More() {
		return nil, errors.New("JSON: trailing data after the request")
	}
	if err := rewriteIDs(v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func rewriteIDs(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && idFields[k] {
				b, err := hex.DecodeString(s)
				if err != nil {
					return fmt.Errorf("JSON: %s %q is not hex", k, s)
				}
				v[k] = base64.StdEncoding.EncodeToString(b)
				continue
			}
			if err := rewriteIDs(x); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := rewriteIDs(x); err != nil {
				return err
			}
		}
	}
	return nil
}

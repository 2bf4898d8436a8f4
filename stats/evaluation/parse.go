package evaluation

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ParseRequest decodes a POST /metrics/calculate body into a Request. Fields
// it does not know (model_id) are ignored. Malformed fields come back as a
// *FieldError naming the field; nulls inside arrays are rejected rather than
// read as zero.
//
// MaxRows (1,000,000) rows, MaxClasses (1000) distinct labels or y_prob
// columns, MaxProbCells (10,000,000) y_prob values. One million binary rows
// with all ten metrics take about 0.2 s on a 2-core development machine
// (BenchmarkCompute1MBinary); decoding their 23 MB of JSON with ParseRequest
// takes about 0.7 s more. The HTTP layer should cap the body size to match.
func ParseRequest(data []byte) (Request, error) {
	var raw struct {
		YTrue    json.RawMessage `json:"y_true"`
		YPred    json.RawMessage `json:"y_pred"`
		YScore   json.RawMessage `json:"y_score"`
		YProb    json.RawMessage `json:"y_prob"`
		Metrics  json.RawMessage `json:"metric_types"`
		Average  json.RawMessage `json:"average"`
		PosLabel json.RawMessage `json:"pos_label"`
		Labels   json.RawMessage `json:"labels"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Request{}, &FieldError{Field: "body", Reason: fmt.Sprintf("must be a JSON object: %v", err)}
	}
	var req Request
	var err error
	if req.YTrue, err = parseColumn("y_true", raw.YTrue); err != nil {
		return Request{}, err
	}
	if req.YPred, err = parseColumn("y_pred", raw.YPred); err != nil {
		return Request{}, err
	}
	if req.Labels, err = parseColumn("labels", raw.Labels); err != nil {
		return Request{}, err
	}
	if req.YScore, err = parseFloats("y_score", raw.YScore); err != nil {
		return Request{}, err
	}
	if req.YProb, err = parseRows("y_prob", raw.YProb); err != nil {
		return Request{}, err
	}
	if isSet(raw.Metrics) {
		if err := json.Unmarshal(raw.Metrics, &req.Metrics); err != nil {
			return Request{}, fieldErr("metric_types", "must be an array of metric names: %v", err)
		}
	}
	if isSet(raw.Average) {
		if err := json.Unmarshal(raw.Average, &req.Average); err != nil {
			return Request{}, fieldErr("average", "must be a string: %v", err)
		}
	}
	if isSet(raw.PosLabel) {
		var l Label
		if err := json.Unmarshal(raw.PosLabel, &l); err != nil {
			return Request{}, fieldErr("pos_label", "%v", err)
		}
		req.PosLabel = &l
	}
	return req, nil
}

// isSet reports whether a raw field was present and not null.
func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func parseColumn(field string, raw json.RawMessage) (Column, error) {
	if !isSet(raw) {
		return Column{}, nil
	}
	c, err := decodeColumn(raw)
	if err != nil {
		return Column{}, fieldErr(field, "%v", err)
	}
	return c, nil
}

// parseFloats decodes an array of numbers; the letter n can only come from
// a null, which is refused.
func parseFloats(field string, raw json.RawMessage) ([]float64, error) {
	if !isSet(raw) {
		return nil, nil
	}
	if v, ok := fastNumbers(raw); ok {
		return v, nil
	}
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fieldErr(field, "must be an array of numbers: %v", err)
	}
	if bytes.IndexByte(raw, 'n') >= 0 {
		return nil, fieldErr(field, "must be an array of numbers: it contains null")
	}
	if v == nil {
		v = []float64{}
	}
	return v, nil
}

// parseRows decodes an array of arrays of numbers, refusing nulls.
func parseRows(field string, raw json.RawMessage) ([][]float64, error) {
	if !isSet(raw) {
		return nil, nil
	}
	if v, ok := fastRows(raw); ok {
		return v, nil
	}
	var v [][]float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fieldErr(field, "must be an array of arrays of numbers: %v", err)
	}
	if bytes.IndexByte(raw, 'n') >= 0 {
		return nil, fieldErr(field, "must be an array of arrays of numbers: it contains null")
	}
	if v == nil {
		v = [][]float64{}
	}
	return v, nil
}

package modelserver

import (
	"encoding/json"
	"fmt"
)

// v2Tensor is one tensor of the Open Inference Protocol V2.
type v2Tensor struct {
	Name     string    `json:"name"`
	Shape    []int     `json:"shape"`
	Datatype string    `json:"datatype"`
	Data     []float64 `json:"data"`
}

// body is the request of rows in the endpoint's protocol: V2 one FP64
// tensor [n, features] in row-major order, V1 {"instances": rows}, MLflow
// {"dataframe_split": {"columns": features, "data": rows}}.
func (c *Client) body(rows [][]float64) any {
	switch c.end.Protocol {
	case KServeV2:
		flat := make([]float64, 0, len(rows)*len(c.end.Features))
		for _, r := range rows {
			flat = append(flat, r...)
		}
		return map[string]any{"inputs": []v2Tensor{{Name: "input-0", Shape: []int{len(rows), len(c.end.Features)},
			Datatype: "FP64", Data: flat}}}
	case KServeV1:
		return map[string]any{"instances": rows}
	}
	return map[string]any{"dataframe_split": map[string]any{"columns": c.end.Features, "data": rows}}
}

// read returns the n outputs of an answer: V2's output tensor named
// OutputName, or its first when OutputName is empty (shape [n], [n, 1] or
// [n, k], row-major), V1's and MLflow's predictions (numbers or arrays of
// numbers; MLflow may answer the bare list).
func (c *Client) read(raw []byte, n int) ([]float64, error) {
	if c.end.Protocol == KServeV2 {
		var a struct {
			Outputs []struct {
				Name  string          `json:"name"`
				Shape []int           `json:"shape"`
				Data  json.RawMessage `json:"data"`
			} `json:"outputs"`
		}
		if err := json.Unmarshal(raw, &a); err != nil || len(a.Outputs) == 0 {
			return nil, fmt.Errorf("the answer is not a V2 inference response with outputs")
		}
		o, what := a.Outputs[0], "the first output"
		if c.end.OutputName != "" {
			names, found := make([]string, len(a.Outputs)), false
			for i, out := range a.Outputs {
				names[i] = out.Name
				if out.Name == c.end.OutputName && !found {
					o, found = out, true
				}
			}
			if !found {
				return nil, fmt.Errorf("the answer has no output named %q; its outputs are %q", c.end.OutputName, names)
			}
			what = fmt.Sprintf("output %q", c.end.OutputName)
		}
		var data []float64
		if err := json.Unmarshal(o.Data, &data); err != nil {
			return nil, fmt.Errorf("%s's data is not numbers", what)
		}
		width := 1
		if len(o.Shape) == 2 {
			width = o.Shape[1]
		}
		if len(o.Shape) == 0 || len(o.Shape) > 2 || o.Shape[0] != n || width < 1 || len(data) != n*width {
			return nil, fmt.Errorf("%s has shape %v and %d values for %d rows", what, o.Shape, len(data), n)
		}
		return c.column(data, width, n)
	}
	var list []json.RawMessage
	var a struct {
		Predictions []json.RawMessage `json:"predictions"`
	}
	if err := json.Unmarshal(raw, &a); err == nil && a.Predictions != nil {
		list = a.Predictions
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("the answer holds no predictions list")
	}
	if len(list) != n {
		return nil, fmt.Errorf("%d predictions for %d rows", len(list), n)
	}
	out := make([]float64, n)
	for i, p := range list {
		var y float64
		if json.Unmarshal(p, &y) == nil {
			if c.end.OutputIndex != 0 {
				return nil, fmt.Errorf("prediction %d is one number; output_index %d needs arrays", i, c.end.OutputIndex)
			}
			out[i] = y
			continue
		}
		var ys []float64
		if err := json.Unmarshal(p, &ys); err != nil || c.end.OutputIndex >= len(ys) {
			return nil, fmt.Errorf("prediction %d is neither a number nor an array of numbers with index %d", i, c.end.OutputIndex)
		}
		out[i] = ys[c.end.OutputIndex]
	}
	return out, nil
}

// column picks OutputIndex of each row of a row-major [n, width] tensor.
func (c *Client) column(data []float64, width, n int) ([]float64, error) {
	if c.end.OutputIndex >= width {
		return nil, fmt.Errorf("output_index %d is past the output's %d columns", c.end.OutputIndex, width)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = data[i*width+c.end.OutputIndex]
	}
	return out, nil
}

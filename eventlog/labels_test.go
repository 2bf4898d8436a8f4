package eventlog

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestParseKeepsOwnFields: each parsed prediction keeps fields of its
// own, whatever is parsed after it.
func TestParseKeepsOwnFields(t *testing.T) {
	ps := make([]Prediction, 50)
	for i := range ps {
		ps[i] = Prediction{
			InputData:  json.RawMessage(fmt.Sprintf(`{"x":%d,"name":"n%d"}`, i, i)),
			OutputData: json.RawMessage(fmt.Sprintf(`{"prediction":%d}`, i%2)),
			Metadata:   json.RawMessage(fmt.Sprintf(`{"label":%d}`, (i+1)%2)),
		}
		ps[i].Parse()
	}
	for i, p := range ps {
		f := p.Fields()
		got := fmt.Sprintf("%s=%s %s=%s | %s=%s | %s=%s", f.Input[0].Name, f.Input[0].Value, f.Input[1].Name, f.Input[1].Value,
			f.Output[0].Name, f.Output[0].Value, f.Metadata[0].Name, f.Metadata[0].Value)
		want := fmt.Sprintf(`x=%d name="n%d" | prediction=%d | label=%d`, i, i, i%2, (i+1)%2)
		if got != want || len(f.Input) != 2 || len(f.Output) != 1 || len(f.Metadata) != 1 {
			t.Errorf("prediction %d: got %s (%d, %d, %d fields), want %s (2, 1, 1)", i, got, len(f.Input), len(f.Output), len(f.Metadata), want)
		}
	}
}

// Command gen writes prediction records in the log's JSON format of main
// at e1e257b (the package gen-v0.sh copies to ../v0), one a line.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/vigilhq/vigil/eventlog/logtest/testdata/v0"
)

func main() {
	ts := time.Date(2026, 11, 26, 9, 0, 0, 123456000, time.UTC)
	docs := []string{
		`{"age": 41, "income": 52000.5, "city": "Lyon", "member": true, "note": null}`,
		`{"prediction": "approved", "score": 0.93, "class": 2}`,
		`{"label": "approved", "region": "<eu>&"}`,
		`{}`,
		`{"nested": {"a": [1, 2.5, "三"]}, "esc": "a\"b\u00e9\u2028"}`,
		`{"y_true": 1, "x": -1e-7}`,
	}
	for i := range 24 {
		lat := float64(i) * 1.25
		p := v0.Prediction{OrgID: "org-1", ModelID: fmt.Sprintf("model-%d", i%3), PredictionID: fmt.Sprintf("p%04d", i),
			InputData: json.RawMessage(docs[i%len(docs)]), OutputData: json.RawMessage(docs[(i+1)%len(docs)]),
			Metadata: json.RawMessage(docs[(i+2)%len(docs)]), Timestamp: ts.Add(time.Duration(i) * time.Minute)}
		if i%4 != 0 {
			p.LatencyMS = &lat
		}
		if i == 5 {
			p.Timestamp = p.Timestamp.In(time.FixedZone("", 7200))
		}
		b, err := v0.EncodeEvent(p)
		if err != nil {
			panic(err)
		}
		os.Stdout.Write(append(b, '\n'))
	}
}

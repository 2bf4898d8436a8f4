package tabular

import (
	"fmt"
	"io"

	"github.com/vigilhq/vigil/eventlog"
)

// jsonWriter writes each prediction as a JSON object, the API's own shape
// without org_id, between open and close and separated by sep.
type jsonWriter struct {
	w                io.Writer
	open, sep, close string
	started          bool
	buf              []byte // the object written last
}

// newJSONArray writes one JSON array: what POST /predictions/query has
// always answered.
func newJSONArray(w io.Writer, _ Options) Writer {
	return &jsonWriter{w: w, open: "[", sep: ",", close: "]"}
}

// newNDJSON writes one JSON object per line, each line ended by "\n".
func newNDJSON(w io.Writer, _ Options) Writer {
	return &jsonWriter{w: w, sep: "\n", close: "\n"}
}

func (j *jsonWriter) Begin() error { return j.write(j.open) }

func (j *jsonWriter) Write(p eventlog.Prediction) error {
	p.OrgID = ""
	b, err := p.AppendJSON(j.buf[:0])
	if err != nil {
		return fmt.Errorf("encode prediction %s: %w", p.PredictionID, err)
	}
	j.buf = b
	if j.started {
		if err := j.write(j.sep); err != nil {
			return err
		}
	}
	j.started = true
	if _, err := j.w.Write(b); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// Close ends the array; for NDJSON, the last line.
func (j *jsonWriter) Close() error {
	if !j.started && j.open == "" {
		return nil
	}
	return j.write(j.close)
}

func (j *jsonWriter) write(s string) error {
	if _, err := io.WriteString(j.w, s); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

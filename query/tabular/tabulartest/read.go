// Package tabulartest reads back what package tabular writes, the way an
// analyst's tools would: encoding/json, encoding/csv, Arrow's IPC reader
// and the Parquet reader of arrow-go. Tests of every layer use it to check
// that each format round-trips.
//
// It imports tabular and the eventlog contract alone.
package tabulartest

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/query/tabular"
)

// Table is a decoded output.
type Table struct {
	Predictions []eventlog.Prediction
	// Batches counts the Arrow stream's record batches or the Parquet
	// file's row groups; 0 for the text formats.
	Batches int
}

// Read decodes b, written in the format called name.
func Read(name string, b []byte) (Table, error) {
	switch name {
	case tabular.JSON.Name:
		var t Table
		err := json.Unmarshal(b, &t.Predictions)
		return t, err
	case tabular.NDJSON.Name:
		return readNDJSON(b)
	case tabular.CSV.Name:
		return readCSV(b)
	case tabular.Arrow.Name:
		return readArrow(b)
	case tabular.Parquet.Name:
		return readParquet(b)
	}
	return Table{}, fmt.Errorf("no format %q", name)
}

func readNDJSON(b []byte) (Table, error) {
	var t Table
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return t, errors.New("ndjson: the last line has no end")
	}
	for line := range bytes.Lines(b) {
		var p eventlog.Prediction
		if err := json.Unmarshal(line, &p); err != nil {
			return t, fmt.Errorf("ndjson line %d: %w", len(t.Predictions)+1, err)
		}
		t.Predictions = append(t.Predictions, p)
	}
	return t, nil
}

func readCSV(b []byte) (Table, error) {
	var t Table
	records, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return t, err
	}
	if len(records) == 0 || !slices.Equal(records[0], tabular.Columns) {
		return t, fmt.Errorf("csv: got header %v, want %v", records[:min(1, len(records))], tabular.Columns)
	}
	for _, r := range records[1:] {
		p := eventlog.Prediction{PredictionID: r[0], ModelID: r[1]}
		if p.Timestamp, err = time.Parse(time.RFC3339Nano, r[2]); err != nil {
			return t, err
		}
		if r[3] != "" {
			l, err := strconv.ParseFloat(r[3], 64)
			if err != nil {
				return t, err
			}
			p.LatencyMS = &l
		}
		p.SetDocuments(r[4], r[5], r[6])
		t.Predictions = append(t.Predictions, p)
	}
	return t, nil
}

func readArrow(b []byte) (Table, error) {
	var t Table
	rd, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return t, err
	}
	defer rd.Release()
	if err := sameFields(rd.Schema()); err != nil {
		return t, fmt.Errorf("arrow: %w", err)
	}
	t.Batches, err = appendAll(&t, rd)
	return t, err
}

func readParquet(b []byte) (Table, error) {
	var t Table
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		return t, err
	}
	defer pf.Close()
	t.Batches = pf.NumRowGroups()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return t, err
	}
	s, err := fr.Schema()
	if err != nil {
		return t, err
	}
	if err := sameFields(s); err != nil {
		return t, fmt.Errorf("parquet: %w", err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return t, err
	}
	defer rr.Release()
	_, err = appendAll(&t, rr)
	return t, err
}

// appendAll decodes every record batch of rr and counts them.
func appendAll(t *Table, rr array.RecordReader) (int, error) {
	n := 0
	for rr.Next() {
		n++
		if err := appendRecord(t, rr.RecordBatch()); err != nil {
			return n, err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return n, err
	}
	return n, nil
}

// sameFields checks s has tabular.Schema's fields: names, types (time
// zone included) and nullability; field metadata may differ.
func sameFields(s *arrow.Schema) error {
	got, want := s.Fields(), tabular.Schema.Fields()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Name == want[i].Name && arrow.TypeEqual(got[i].Type, want[i].Type) && got[i].Nullable == want[i].Nullable
	}
	if !ok {
		return fmt.Errorf("got schema %s, want %s", s, tabular.Schema)
	}
	return nil
}

// appendRecord decodes the rows of a record batch of tabular.Schema.
func appendRecord(t *Table, rec arrow.RecordBatch) error {
	str := func(i int) *array.String { return rec.Column(i).(*array.String) }
	ts := rec.Column(2).(*array.Timestamp)
	lat := rec.Column(3).(*array.Float64)
	for i := range int(rec.NumRows()) {
		p := eventlog.Prediction{PredictionID: str(0).Value(i), ModelID: str(1).Value(i),
			Timestamp: time.UnixMicro(int64(ts.Value(i))).UTC()}
		if lat.IsValid(i) {
			l := lat.Value(i)
			p.LatencyMS = &l
		}
		p.SetDocuments(str(4).Value(i), str(5).Value(i), str(6).Value(i))
		t.Predictions = append(t.Predictions, p)
	}
	return nil
}

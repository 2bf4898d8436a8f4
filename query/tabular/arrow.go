package tabular

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vigilhq/vigil/eventlog"
)

// Schema is the Arrow schema of the columnar formats: strings, the time
// as timestamp[us, UTC] (the stores' resolution) and a nullable float64
// latency.
var Schema = arrow.NewSchema([]arrow.Field{
	{Name: "prediction_id", Type: arrow.BinaryTypes.String},
	{Name: "model_id", Type: arrow.BinaryTypes.String},
	{Name: "timestamp", Type: arrow.FixedWidthTypes.Timestamp_us},
	{Name: "latency_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "input_data", Type: arrow.BinaryTypes.String},
	{Name: "output_data", Type: arrow.BinaryTypes.String},
	{Name: "metadata", Type: arrow.BinaryTypes.String},
}, nil)

// batch builds record batches of Schema up to the Options' bounds.
type batch struct {
	b           *array.RecordBuilder
	rows, bytes int
	o           Options
}

func newBatch(o Options, rows, bytes int) *batch {
	if o.BatchRows <= 0 {
		o.BatchRows = rows
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = bytes
	}
	return &batch{b: array.NewRecordBuilder(memory.DefaultAllocator, Schema), o: o}
}

// add appends p and reports whether the batch is full.
func (b *batch) add(p eventlog.Prediction) (bool, error) {
	r := newRow(p)
	f := b.b.Fields()
	f[0].(*array.StringBuilder).Append(r.id)
	f[1].(*array.StringBuilder).Append(r.modelID)
	f[2].(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts.UnixMicro()))
	if r.latency == nil {
		f[3].(*array.Float64Builder).AppendNull()
	} else {
		f[3].(*array.Float64Builder).Append(*r.latency)
	}
	f[4].(*array.StringBuilder).Append(r.input)
	f[5].(*array.StringBuilder).Append(r.output)
	f[6].(*array.StringBuilder).Append(r.metadata)
	b.rows++
	b.bytes += r.size()
	return b.rows >= b.o.BatchRows || b.bytes >= b.o.BatchBytes, nil
}

// flush hands the rows added so far, if any, to sink as one record batch
// and starts the next batch.
func (b *batch) flush(sink recordSink) error {
	if b.rows == 0 {
		return nil
	}
	rec := b.b.NewRecordBatch()
	defer rec.Release()
	b.rows, b.bytes = 0, 0
	return sink.Write(rec)
}

// recordSink takes record batches: Arrow's IPC stream writer and the
// Parquet file writer alike.
type recordSink interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// columnar writes predictions in record batches to the sink that open
// makes: an Arrow IPC stream or a Parquet file.
type columnar struct {
	name  string
	batch *batch
	open  func() (recordSink, error)
	sink  recordSink
}

func (c *columnar) Begin() error {
	s, err := c.open()
	if err != nil {
		return fmt.Errorf("write %s: %w", c.name, err)
	}
	c.sink = s
	return nil
}

func (c *columnar) Write(p eventlog.Prediction) error {
	full, err := c.batch.add(p)
	if err != nil || !full {
		return err
	}
	return c.flush()
}

func (c *columnar) flush() error {
	if err := c.batch.flush(c.sink); err != nil {
		return fmt.Errorf("write %s: %w", c.name, err)
	}
	return nil
}

func (c *columnar) Close() error {
	defer c.batch.b.Release()
	if err := c.flush(); err != nil {
		return err
	}
	if err := c.sink.Close(); err != nil {
		return fmt.Errorf("write %s: %w", c.name, err)
	}
	return nil
}

// newArrow writes an Arrow IPC stream: the schema, then record batches of
// up to 8192 rows or 4 MiB of text, then the end-of-stream marker.
func newArrow(w io.Writer, o Options) Writer {
	return &columnar{name: "arrow", batch: newBatch(o, 8192, 4<<20), open: func() (recordSink, error) {
		return ipc.NewWriter(w, ipc.WithSchema(Schema)), nil
	}}
}

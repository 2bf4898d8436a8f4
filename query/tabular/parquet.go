package tabular

import (
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// newParquet writes a Parquet file, Snappy-compressed, one row group per
// batch of up to 65536 rows or 16 MiB of text. The Arrow schema is stored
// in the file's metadata, so that Arrow readers get the time zone back.
func newParquet(w io.Writer, o Options) Writer {
	b := newBatch(o, 65536, 16<<20)
	return &columnar{name: "parquet", batch: b, open: func() (recordSink, error) {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithMaxRowGroupLength(int64(b.o.BatchRows)))
		return pqarrow.NewFileWriter(Schema, noClose{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	}}
}

// noClose hides the underlying writer's Close, which the Parquet writer
// would otherwise call.
type noClose struct{ io.Writer }

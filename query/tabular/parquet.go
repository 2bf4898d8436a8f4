package tabular

import (
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// newParquet writes a Parquet file, Snappy-compressed, one row group per
// batch of up to 65536 rows or 8 MiB of text. Only model_id is dictionary
// encoded: the other strings are mostly unique, and a dictionary-encoded
// column keeps its pages in memory until its row group ends. The Arrow
// schema is stored in the file's metadata, so that Arrow readers get the
// time zone back.
func newParquet(w io.Writer, o Options) Writer {
	b := newBatch(o, 65536, 8<<20)
	return &columnar{name: "parquet", batch: b, open: func() (recordSink, error) {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithMaxRowGroupLength(int64(b.o.BatchRows)),
			parquet.WithDictionaryDefault(false), parquet.WithDictionaryFor("model_id", true))
		return pqarrow.NewFileWriter(Schema, noClose{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	}}
}

// noClose hides the underlying writer's Close, which the Parquet writer
// would otherwise call.
type noClose struct{ io.Writer }

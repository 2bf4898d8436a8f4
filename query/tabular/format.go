// Package tabular writes predictions as the tables analysts load: a JSON
// array, newline-delimited JSON, CSV, an Arrow IPC stream or a Parquet
// file. Every writer streams: it holds at most one bounded batch of rows,
// however many it is given.
//
// Every format has the same seven columns, in this order: prediction_id,
// model_id, timestamp, latency_ms, input_data, output_data and metadata.
// The organization is never written. In CSV, Arrow and Parquet the three
// documents (input_data, output_data, metadata) are JSON text in a string
// cell, as stored, rather than flattened into columns: their keys differ
// from one prediction to the next.
//
// It imports the eventlog contract (the Prediction it writes) and nothing
// else of Vigil.
package tabular

import (
	"io"
	"slices"

	"github.com/vigilhq/vigil/eventlog"
)

// Columns are the columns of every format, in order.
var Columns = []string{"prediction_id", "model_id", "timestamp", "latency_ms", "input_data", "output_data", "metadata"}

// Writer writes predictions in one format to an underlying writer, which
// should be buffered. Begin comes first, then any number of Write, then
// Close, which completes the output (the closing bracket, the footer)
// without closing the underlying writer. After an error the output is
// incomplete and the writer is done.
type Writer interface {
	Begin() error
	Write(p eventlog.Prediction) error
	Close() error
}

// Options bound the batches of the columnar formats, Arrow and Parquet: a
// batch is written out once it holds BatchRows rows or BatchBytes bytes of
// text, whichever comes first. Zero takes the format's default. The
// bounds are what keeps memory constant: one batch at a time.
type Options struct {
	BatchRows  int
	BatchBytes int
}

// Format is an output format.
type Format struct {
	// Name is what the format query parameter calls it.
	Name string
	// MediaType is what Accept asks for.
	MediaType string
	// ContentType is the Content-Type of an answer: MediaType, with the
	// character set where the type leaves it open.
	ContentType string
	// Extension ends a file name of the format, dot included.
	Extension string
	// New returns a writer of the format onto w.
	New func(w io.Writer, o Options) Writer
}

// The formats, by name.
var (
	JSON = Format{Name: "json", MediaType: "application/json", ContentType: "application/json",
		Extension: ".json", New: newJSONArray}
	NDJSON = Format{Name: "ndjson", MediaType: "application/x-ndjson", ContentType: "application/x-ndjson",
		Extension: ".ndjson", New: newNDJSON}
	CSV = Format{Name: "csv", MediaType: "text/csv", ContentType: "text/csv; charset=utf-8",
		Extension: ".csv", New: newCSV}
	Arrow = Format{Name: "arrow", MediaType: "application/vnd.apache.arrow.stream",
		ContentType: "application/vnd.apache.arrow.stream", Extension: ".arrows", New: newArrow}
	Parquet = Format{Name: "parquet", MediaType: "application/vnd.apache.parquet",
		ContentType: "application/vnd.apache.parquet", Extension: ".parquet", New: newParquet}
)

// Formats are every format, JSON first: the default when nothing is asked
// for.
var Formats = []Format{JSON, NDJSON, CSV, Arrow, Parquet}

// Names returns the formats' names, in the order of Formats.
func Names() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return names
}

// ByName returns the format called name.
func ByName(name string) (Format, bool) {
	i := slices.IndexFunc(Formats, func(f Format) bool { return f.Name == name })
	if i < 0 {
		return Format{}, false
	}
	return Formats[i], true
}

// Accepted returns the format that accepts picks: a content negotiator,
// such as fiber.Ctx.Accepts, that returns the offer the Accept header
// prefers, or "" when it allows none. The offers are every format's media
// type, and its content type where that adds a character set; false when
// none is picked.
func Accepted(accepts func(offers ...string) string) (Format, bool) {
	var offers []string
	for _, f := range Formats {
		offers = append(offers, f.MediaType)
		if f.ContentType != f.MediaType {
			offers = append(offers, f.ContentType)
		}
	}
	picked := accepts(offers...)
	i := slices.IndexFunc(Formats, func(f Format) bool { return picked != "" && (f.MediaType == picked || f.ContentType == picked) })
	if i < 0 {
		return Format{}, false
	}
	return Formats[i], true
}

// MediaTypes returns the formats' media types, in the order of Formats.
func MediaTypes() []string {
	out := make([]string, len(Formats))
	for i, f := range Formats {
		out[i] = f.MediaType
	}
	return out
}

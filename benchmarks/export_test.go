package benchmarks

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/vigilhq/vigil/query/tabular"
)

// exportRows is how many predictions BenchmarkExport logs and exports.
const exportRows = 50_000

// BenchmarkExport logs exportRows predictions on the embedded default,
// then measures GET /predictions/export of all of them in each format,
// read to the end by one client. It reports rows/s and the answer's size.
func BenchmarkExport(b *testing.B) {
	base := server(b, nil)
	key := apiKey(b, base)
	model := modelID(b, base, key)
	for i := range exportRows / 1000 {
		if code := postRaw(http.DefaultClient, base+"/predictions/log/batch", key, batchBody(model, "e", i)); code != http.StatusCreated {
			b.Fatalf("log batch: got %d", code)
		}
	}
	for deadline := time.Now().Add(5 * time.Minute); total(b, base, key, model) < exportRows; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("not every prediction stored within 5 minutes")
		}
	}
	for _, f := range tabular.Formats {
		b.Run(f.Name, func(b *testing.B) {
			var size int64
			start := time.Now()
			for range b.N {
				size = exportOnce(b, base+"/predictions/export?format="+f.Name+"&model_id="+model, key)
			}
			b.ReportMetric(float64(exportRows*b.N)/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric(float64(size)/(1<<20), "MiB")
		})
	}
}

// exportOnce reads one export to the end and returns its size.
func exportOnce(b *testing.B, url, key string) int64 {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		b.Fatalf("export: %d, %v", res.StatusCode, err)
	}
	return n
}

package benchmarks

import (
	"net/http"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/ingest/otlp/otlptest"
)

// otlpBodies are n spans like otlp_spans.py's for model as OTLP/HTTP
// protobuf exports of batch spans each (the BatchSpanProcessor's 512),
// encoded before anything is timed; seed keeps ids apart between runs.
func otlpBodies(b *testing.B, model string, n, batch int, seed uint64) []otlptest.Export {
	b.Helper()
	out, err := otlptest.Exports(model, seed, n, batch)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// exportOTLP posts exports to the OTLP/HTTP traces endpoint at root from
// conns connections at once, and returns how many spans the server
// rejected (partial_success); any answer but 200 fails the benchmark.
func exportOTLP(b *testing.B, root, key string, exports []otlptest.Export, conns int) int64 {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	next := make(chan []byte)
	var mu sync.Mutex
	var rejected int64
	var failure error
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for body := range next {
				_, n, err := otlptest.Post(client, root+"/v1/traces", key, body)
				mu.Lock()
				rejected += n
				if err != nil && failure == nil {
					failure = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, e := range exports {
		next <- e.Body
	}
	close(next)
	wg.Wait()
	if failure != nil {
		b.Fatal(failure)
	}
	return rejected
}

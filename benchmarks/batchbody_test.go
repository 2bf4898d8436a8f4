package benchmarks

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestBatchBody: the body appended by hand is the one encoding/json
// writes for the same document, so the server's work is unchanged.
func TestBatchBody(t *testing.T) {
	for _, c := range []struct {
		model, prefix string
		i             int
	}{{"0193a9b2-7c1d-7e4f-8a2b-3c4d5e6f7a8b", "b", 0}, {"m\"odel", "load", 123}} {
		want, err := json.Marshal(batchDocument(c.model, c.prefix, c.i))
		if err != nil {
			t.Fatal(err)
		}
		if got := batchBody(c.model, c.prefix, c.i); !bytes.Equal(got, want) {
			t.Errorf("%+v: got %.200s..., want %.200s...", c, got, want)
		}
	}
}

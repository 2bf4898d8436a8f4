package modelserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/explanation/modelserver"
	"github.com/vigilhq/vigil/platform/outbound"
)

// fake answers V1 requests with each row's first value times ten, or
// with handler when set, and counts requests.
func fake(t *testing.T, handler http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if handler != nil {
			handler(w, r)
			return
		}
		var b struct{ Instances [][]float64 }
		_ = json.NewDecoder(r.Body).Decode(&b)
		out := make([][]float64, len(b.Instances))
		for i, row := range b.Instances {
			out[i] = []float64{row[0] * 10, -row[0]}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"predictions": out})
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func endpoint(url string) modelserver.Endpoint {
	return modelserver.Endpoint{Protocol: modelserver.KServeV1, URL: url, ModelName: "m", Features: []string{"a", "b"},
		Timeout: 5 * time.Second, MaxBatch: 4, RequestBudget: 3}
}

func rows(n int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = []float64{float64(i), 1}
	}
	return out
}

// TestBatchesAndBudget: 10 rows go as 4+4+2 in three requests; the next
// call, which would need a fourth, is refused before any request.
func TestBatchesAndBudget(t *testing.T) {
	srv, n := fake(t, nil)
	e := endpoint(srv.URL)
	e.OutputIndex = 1
	c, err := modelserver.New(loopback, e)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := c.Predict(context.Background(), rows(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(ys) != 10 || ys[9] != -9 {
		t.Fatalf("got %v, want 10 outputs of column 1 ending with -9", ys)
	}
	if n.Load() != 3 || c.Requests() != 3 {
		t.Fatalf("got %d requests (%d counted), want 3", n.Load(), c.Requests())
	}
	_, err = c.Predict(context.Background(), rows(1))
	if !errors.Is(err, modelserver.ErrBudget) {
		t.Fatalf("got %v, want ErrBudget", err)
	}
	if n.Load() != 3 {
		t.Fatalf("got %d requests after the refusal, want 3", n.Load())
	}
}

// TestFailures: a server that never answers times out, an error status,
// a wrong count of predictions, a redirect and a missing value each give
// an error naming the cause.
func TestFailures(t *testing.T) {
	release := make(chan struct{})
	hang, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	failing, _ := fake(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "model not loaded", 503) })
	short, _ := fake(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"predictions":[1]}`)) })
	moved, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.1/", http.StatusFound)
	})
	cases := []struct {
		name, url string
		rows      [][]float64
		want      string
	}{
		{"timeout", hang.URL, rows(1), "Timeout"},
		{"status", failing.URL, rows(1), "answered 503: model not loaded"},
		{"count", short.URL, rows(2), "1 predictions for 2 rows"},
		{"redirect", moved.URL, rows(1), "answered 302"},
		{"missing", short.URL, [][]float64{{1, nan()}}, "missing or infinite"},
	}
	for _, c := range cases {
		e := endpoint(c.url)
		e.Timeout = 200 * time.Millisecond
		cl, err := modelserver.New(loopback, e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Predict(context.Background(), c.rows); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestGuard: without the allow-list, loopback targets are refused in any
// spelling and the server sees no connection.
func TestGuard(t *testing.T) {
	srv, n := fake(t, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, u := range []string{srv.URL, "http://127.1" + port, "http://2130706433" + port, "http://[::1]" + port,
		"http://localhost" + port, "file:///etc/passwd"} {
		if _, err := modelserver.New(&outbound.Guard{}, endpoint(u)); !outbound.Refused(err) {
			t.Errorf("%s: got %v, want refused", u, err)
		}
	}
	// A host name passes the URL check and is checked when dialled (an
	// unresolvable one fails there).
	c, err := modelserver.New(&outbound.Guard{}, endpoint("http://localtest.invalid"+port))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Predict(context.Background(), rows(1)); err == nil {
		t.Error("got no error calling an unresolvable name")
	}
	if n.Load() != 0 {
		t.Errorf("got %d connections to the loopback canary, want 0", n.Load())
	}
}

func nan() float64 { return math.NaN() }

// TestV2OutputByName: a V2 answer of two outputs, predict_proba ([n, 2])
// and predict ([n]), in either order, is read by name (output_index
// picking predict_proba's column); without a name the first output is
// read as before; a name the answer lacks fails naming the outputs it has.
func TestV2OutputByName(t *testing.T) {
	for _, probaFirst := range []bool{false, true} {
		srv, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
			var b struct {
				Inputs []struct{ Data []float64 }
			}
			_ = json.NewDecoder(r.Body).Decode(&b)
			d := b.Inputs[0].Data
			var predict, proba []float64
			for i := 0; i < len(d); i += 2 {
				predict = append(predict, d[i]*10)
				proba = append(proba, 1-d[i]/100, d[i]/100)
			}
			n := len(predict)
			outs := []map[string]any{{"name": "predict", "shape": []int{n}, "datatype": "FP64", "data": predict},
				{"name": "predict_proba", "shape": []int{n, 2}, "datatype": "FP64", "data": proba}}
			if probaFirst {
				outs[0], outs[1] = outs[1], outs[0]
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"model_name": "m", "outputs": outs})
		})
		f := func(name string, index int, want []float64, wantErr string) {
			t.Helper()
			e := endpoint(srv.URL)
			e.Protocol, e.OutputName, e.OutputIndex = modelserver.KServeV2, name, index
			c, err := modelserver.New(loopback, e)
			if err != nil {
				t.Fatal(err)
			}
			ys, err := c.Predict(context.Background(), rows(3))
			if wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), wantErr) {
					t.Errorf("proba first %v, output %q: got %v, want an error with %q", probaFirst, name, err, wantErr)
				}
				return
			}
			if err != nil || fmt.Sprint(ys) != fmt.Sprint(want) {
				t.Errorf("proba first %v, output %q[%d]: got %v (%v), want %v", probaFirst, name, index, ys, err, want)
			}
		}
		f("predict", 0, []float64{0, 10, 20}, "")
		f("predict_proba", 1, []float64{0, 0.01, 0.02}, "")
		f("predict_proba", 0, []float64{1, 0.99, 0.98}, "")
		if probaFirst {
			f("", 1, []float64{0, 0.01, 0.02}, "")
		} else {
			f("", 0, []float64{0, 10, 20}, "")
		}
		f("proba", 0, nil, `no output named "proba"; its outputs are ["`)
		f("predict", 1, nil, "output_index 1 is past the output's 1 columns")
	}
}

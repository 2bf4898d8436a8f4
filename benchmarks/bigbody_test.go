package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/config"
)

// biasRows is the size of BenchmarkBigBodies' bias audit: a million rows
// of two attributes, about 17 MB of JSON.
const biasRows = 1_000_000

// biasBody writes a label-supplied POST /bias/audit body of n rows: gender
// (3 groups) and race (5), y_true and y_pred as 0/1, the selection rate
// depending on the group so that the audit has something to find.
func biasBody(model string, n int) []byte {
	r := rand.New(rand.NewPCG(15, 7))
	genders, races := []string{"female", "male", "nonbinary"}, []string{"a", "b", "c", "d", "e"}
	g, rc, yt, yp := make([]string, n), make([]string, n), make([]int, n), make([]int, n)
	for i := range n {
		gi, ri := r.IntN(len(genders)), r.IntN(len(races))
		g[i], rc[i] = genders[gi], races[ri]
		yt[i] = r.IntN(2)
		if r.Float64() < 0.4+0.1*float64(gi)+0.02*float64(ri) {
			yp[i] = 1
		}
	}
	body, _ := json.Marshal(map[string]any{"model_id": model, "sensitive_attributes": []string{"gender", "race"},
		"y_true": yt, "y_pred": yp, "group_data": map[string]any{"gender": g, "race": rc}})
	return body
}

// BenchmarkBigBodies measures the round trips of the big analysis bodies
// (issue 15, point 7) on the embedded default, over HTTP with an API key:
//
//   - bias-audit: a label-supplied POST /bias/audit of biasRows rows and
//     two attributes; accept-ms is the time to the 202, done-ms the time
//     until GET /bias/audits/{id} (polled every 5 ms) says completed.
//   - drift-detect: POST /drift/detect of VIGIL_BENCH_BIG_DRIFT
//     (REFxCURxFEATURES, default 200000x50000x20: N(0, 1) values rounded
//     to 6 decimals, written as Python's json.dumps writes them, about
//     52 MB), time to the 200.
//
// cpu-s/op is the process's CPU time (server and client) per request.
//
// VIGIL_BENCH_BIG_OUT=DIR writes both bodies there (bias.json,
// drift.json) for benchmarks/bigbody_python.py, which times fairlearn and
// SciPy on the same bytes.
func BenchmarkBigBodies(b *testing.B) {
	base := server(b, func(c *config.Config) { c.BodyLimit = 512 << 20 })
	key := apiKey(b, base)
	model := modelID(b, base, key)
	client := &http.Client{Timeout: 10 * time.Minute}
	out := os.Getenv("VIGIL_BENCH_BIG_OUT")
	save := func(name string, body []byte) {
		if out != "" {
			if err := os.WriteFile(out+"/"+name, body, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}

	bias := biasBody(model, biasRows)
	save("bias.json", bias)
	b.Run(fmt.Sprintf("bias-audit/%dx2", biasRows), func(b *testing.B) {
		b.SetBytes(int64(len(bias)))
		var accept, done time.Duration
		cpu := readCPU(b)
		for b.Loop() {
			start := time.Now()
			code, res := send(b, client, base+"/bias/audit", key, bias)
			if code != http.StatusAccepted {
				b.Fatalf("POST /bias/audit: got %d %s, want 202", code, res)
			}
			accept += time.Since(start)
			var a struct{ ID string }
			if err := json.Unmarshal(res, &a); err != nil {
				b.Fatal(err)
			}
			for {
				req, _ := http.NewRequest("GET", base+"/bias/audits/"+a.ID, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				r, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var got struct{ Status string }
				err = json.NewDecoder(r.Body).Decode(&got)
				r.Body.Close()
				if err != nil {
					b.Fatal(err)
				}
				if got.Status == "completed" {
					break
				}
				if got.Status != "pending" && got.Status != "running" {
					b.Fatalf("audit %s: got status %q, want completed", a.ID, got.Status)
				}
				time.Sleep(5 * time.Millisecond)
			}
			done += time.Since(start)
		}
		reportCPUPerOp(b, cpu)
		b.ReportMetric(float64(accept.Microseconds())/1000/float64(b.N), "accept-ms")
		b.ReportMetric(float64(done.Microseconds())/1000/float64(b.N), "done-ms")
	})

	shape := driftShape{200_000, 50_000, 20}
	if s := os.Getenv("VIGIL_BENCH_BIG_DRIFT"); s != "" {
		if _, err := fmt.Sscanf(s, "%dx%dx%d", &shape.ref, &shape.cur, &shape.features); err != nil {
			b.Fatalf("VIGIL_BENCH_BIG_DRIFT=%q: want REFxCURxFEATURES: %v", s, err)
		}
	}
	drift := roundedDriftBody(model, shape)
	save("drift.json", drift)
	b.Run(fmt.Sprintf("drift-detect/%dx%dx%d", shape.ref, shape.cur, shape.features), func(b *testing.B) {
		b.SetBytes(int64(len(drift)))
		b.ReportMetric(float64(len(drift))/1e6, "body-MB")
		cpu := readCPU(b)
		for b.Loop() {
			if code, res := send(b, client, base+"/drift/detect", key, drift); code != http.StatusOK {
				b.Fatalf("POST /drift/detect: got %d %.300s, want 200", code, res)
			}
		}
		reportCPUPerOp(b, cpu)
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "round-trip-ms")
	})
}

// roundedDriftBody is a detect request of shape for model: N(0, 1) values
// rounded to 6 decimals, every other current feature shifted by 0.05, in
// json.dumps's text (shortest float repr, ", " and ": " separators).
func roundedDriftBody(model string, shape driftShape) []byte {
	r := rand.New(rand.NewPCG(42, 15))
	var buf bytes.Buffer
	buf.Grow(shape.features * (shape.ref + shape.cur) * 13)
	side := func(name string, n int, shift bool) {
		buf.WriteString(`"` + name + `": {`)
		for f := range shape.features {
			if f > 0 {
				buf.WriteString(", ")
			}
			fmt.Fprintf(&buf, `"feature_%d": [`, f)
			mean := 0.0
			if shift && f%2 == 1 {
				mean = 0.05
			}
			var num []byte
			for i := range n {
				if i > 0 {
					buf.WriteString(", ")
				}
				v := math.Round((mean+r.NormFloat64())*1e6) / 1e6
				num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
				if bytes.IndexAny(num, ".e") < 0 {
					num = append(num, ".0"...) // Python writes floats with a point
				}
				buf.Write(num)
			}
			buf.WriteByte(']')
		}
		buf.WriteByte('}')
	}
	fmt.Fprintf(&buf, `{"model_id": %q, `, model)
	side("reference_data", shape.ref, false)
	buf.WriteString(", ")
	side("current_data", shape.cur, true)
	buf.WriteString(`}`)
	return buf.Bytes()
}

// send POSTs body with key and returns the status and the answer's body.
func send(b *testing.B, client *http.Client, url, key string, body []byte) (int, []byte) {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		b.Fatal(err)
	}
	return res.StatusCode, out
}

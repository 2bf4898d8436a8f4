package benchmarks

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/stats/forest"
	"github.com/vigilhq/vigil/stats/lime"
	"github.com/vigilhq/vigil/stats/shap"
)

// explainSetup is what BenchmarkExplain's parts share: the reference
// script's directory, its Python, the model and the rows.
type explainSetup struct {
	py, dir    string
	model      *forest.Ensemble
	rows, bg   [][]float64
	linear     []float64 // coefficients, then the intercept
	kernelRows int
	limeRows   int
	treeRows   int
}

// BenchmarkExplain measures explanations against the reference libraries
// side by side in one run (issue 16 point 6): explain_reference.py trains
// a 500-tree depth-8 XGBoost model on synthetic data (once per directory)
// and times shap.TreeExplainer over 10,000 rows, shap.KernelExplainer and
// lime's LimeTabularExplainer over the first rows; each part then times
// Vigil on the same model, rows and background. Kernel SHAP and LIME are
// measured twice: on the XGBoost model (each side evaluating it natively:
// XGBoost's predict; Vigil's shap.KernelTree, as explanation uses it for a
// tree artifact, and RawRows for LIME, on every core) and on a linear model
// (numpy's dot product, Go's loop), where the explainer's own work is what
// is timed. Every part reports both sides' wall and CPU seconds (vigil-s,
// ref-s, vigil-cpu-s, ref-cpu-s; CPU counts every thread), the ratios
// (x = ref-s / vigil-s, x-cpu likewise) and the largest difference
// between the two sides' values (maxdiff; LIME draws different samples, so none there).
// The predict part times the model alone over 10,000 rows against
// XGBoost's predict; the reference also reports its seconds inside the
// model (ref-model-cpu-s). VIGIL_BENCH_EXPLAIN_HYBRID=1 also times Kernel
// SHAP through the hybrid rows (shap.Kernel over RawRows), as before
// KernelTree.
//
//	eval "$(platform/testenv/engines.sh env)"
//	go test -run '^$' -bench BenchmarkExplain -benchtime 1x -timeout 60m ./benchmarks
//
// VIGIL_BENCH_EXPLAIN_DIR keeps the trained model between runs;
// VIGIL_BENCH_EXPLAIN_ROWS=K,L[,T] sets how many rows Kernel SHAP, LIME
// and TreeSHAP explain (default 5,20,10000).
func BenchmarkExplain(b *testing.B) {
	s := &explainSetup{py: testenv.URL(b, testenv.ExplainPython), dir: os.Getenv("VIGIL_BENCH_EXPLAIN_DIR"), kernelRows: 5, limeRows: 20, treeRows: 10_000}
	if s.dir == "" {
		s.dir = b.TempDir()
	}
	if v := os.Getenv("VIGIL_BENCH_EXPLAIN_ROWS"); v != "" {
		if n, err := fmt.Sscanf(v, "%d,%d,%d", &s.kernelRows, &s.limeRows, &s.treeRows); n < 2 {
			b.Fatalf("VIGIL_BENCH_EXPLAIN_ROWS=%q: want K,L or K,L,T: %v", v, err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.dir, "linear.json")); err != nil { // written last
		s.reference(b, "prepare")
	}
	s.load(b)
	b.Logf("GOMAXPROCS %d; load average at start: %s", runtime.GOMAXPROCS(0), loadAverage())
	b.Run("tree", s.tree)
	b.Run("predict", s.predict)
	for _, which := range []string{"xgboost", "linear"} {
		b.Run("kernel/"+which, func(b *testing.B) { s.kernel(b, which) })
		b.Run("lime/"+which, func(b *testing.B) { s.lime(b, which) })
	}
	b.Logf("load average at end: %s", loadAverage())
}

// loadAverage returns /proc/loadavg's three figures.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if len(b) > 14 {
		return string(b[:14])
	}
	return string(b)
}

// cpuTime is the CPU time this process has used, every thread.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// timing is one side's wall and CPU seconds.
type timing struct {
	wall, cpu           float64
	modelWall, modelCPU float64 // the reference's seconds inside the model (XGBoost's predict)
}

// measure runs fn b.N times and returns its wall and CPU seconds per run.
func measure(b *testing.B, fn func()) timing {
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime(b)
	for range b.N {
		fn()
	}
	t := timing{wall: time.Since(start).Seconds() / float64(b.N), cpu: (cpuTime(b) - cpu).Seconds() / float64(b.N)}
	b.StopTimer()
	return t
}

// reference runs explain_reference.py with args and returns its wall and
// CPU seconds (CPU: every thread of the Python process, XGBoost's too).
func (s *explainSetup) reference(b *testing.B, mode string, args ...string) timing {
	b.Helper()
	cmd := exec.Command(s.py, append([]string{"explain_reference.py", mode, s.dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("explain_reference.py %s: %v\n%s", mode, err, out)
	}
	if mode == "prepare" {
		return timing{}
	}
	var t timing
	if _, err := fmt.Sscanf(string(out), "seconds %g %g\nmodel %g %g", &t.wall, &t.cpu, &t.modelWall, &t.modelCPU); err != nil {
		b.Fatalf("explain_reference.py printed %q: %v", out, err)
	}
	b.Logf("reference %s %v: %.3f s wall, %.3f s CPU, of which in the model %.3f s wall, %.3f s CPU; load average %s",
		mode, args, t.wall, t.cpu, t.modelWall, t.modelCPU, loadAverage())
	return t
}

// readJSON decodes a file of the directory.
func (s *explainSetup) readJSON(b *testing.B, name string, v any) {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
}

// load reads the model, the rows and the background.
func (s *explainSetup) load(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(s.dir, "model.json"))
	if err != nil {
		b.Fatal(err)
	}
	if s.model, err = forest.ParseXGBoost(data); err != nil {
		b.Fatal(err)
	}
	s.readJSON(b, "rows.json", &s.rows)
	s.readJSON(b, "background.json", &s.bg)
	var lin struct {
		Coefficients []float64 `json:"coefficients"`
		Intercept    float64   `json:"intercept"`
	}
	s.readJSON(b, "linear.json", &lin)
	s.linear = append(lin.Coefficients, lin.Intercept)
	var margins []float64
	s.readJSON(b, "margin.json", &margins)
	for i, x := range s.rows[:100] {
		if got := s.model.Raw(x); math.Abs(got-margins[i]) > 1e-4*max(1, math.Abs(margins[i])) {
			b.Fatalf("row %d: Vigil's margin %v, XGBoost's %v", i, got, margins[i])
		}
	}
}

// reportExplain sets a part's metrics: both sides' wall and CPU seconds
// and their ratios.
func reportExplain(b *testing.B, vigil, ref timing, maxdiff float64) {
	b.ReportMetric(vigil.wall, "vigil-s")
	b.ReportMetric(ref.wall, "ref-s")
	b.ReportMetric(ref.wall/vigil.wall, "x")
	b.ReportMetric(vigil.cpu, "vigil-cpu-s")
	b.ReportMetric(ref.cpu, "ref-cpu-s")
	b.ReportMetric(ref.cpu/vigil.cpu, "x-cpu")
	b.ReportMetric(ref.modelCPU, "ref-model-cpu-s")
	b.Logf("load average %s", loadAverage())
	if maxdiff >= 0 {
		b.ReportMetric(maxdiff, "maxdiff")
	}
}

// tree times TreeSHAP over every row: the per-tree tables built and every
// row explained on GOMAXPROCS goroutines, against shap.TreeExplainer.
func (s *explainSetup) tree(b *testing.B) {
	ref := s.reference(b, "tree", strconv.Itoa(s.treeRows))
	var want struct {
		Values [][]float64 `json:"values"`
	}
	s.readJSON(b, "tree.json", &want)
	var got []shap.Result
	vigil := measure(b, func() {
		var err error
		if got, err = shap.NewTreeExplainer(s.model).ExplainRows(s.rows[:s.treeRows], 0); err != nil {
			b.Fatal(err)
		}
	})
	maxdiff := 0.0
	for i, r := range got {
		for j, v := range r.Values {
			maxdiff = max(maxdiff, math.Abs(v-want.Values[i][j]))
		}
	}
	reportExplain(b, vigil, ref, maxdiff)
}

// shapModel returns which model as a batch function; the forest is
// evaluated on GOMAXPROCS goroutines, as XGBoost's predict uses every core.
func (s *explainSetup) shapModel(which string) shap.Model {
	if which == "linear" {
		return func(rows [][]float64) ([]float64, error) {
			out := make([]float64, len(rows))
			n := len(s.linear) - 1
			for i, r := range rows {
				y := s.linear[n]
				for j, c := range s.linear[:n] {
					y += c * r[j]
				}
				out[i] = y
			}
			return out, nil
		}
	}
	return func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		workers := runtime.GOMAXPROCS(0)
		chunk := (len(rows) + workers - 1) / workers
		var wg sync.WaitGroup
		for from := 0; from < len(rows); from += chunk {
			wg.Add(1)
			go func(from int) {
				defer wg.Done()
				end := min(from+chunk, len(rows))
				s.model.RawRows(rows[from:end], out[from:end])
			}(from)
		}
		wg.Wait()
		return out, nil
	}
}

// kernel times Kernel SHAP on the first rows against shap.KernelExplainer
// with the same background (every coalition enumerated on both sides).
func (s *explainSetup) kernel(b *testing.B, which string) {
	ref := s.reference(b, "kernel", strconv.Itoa(s.kernelRows), which)
	var want struct {
		Values [][]float64 `json:"values"`
	}
	s.readJSON(b, "kernel-"+which+".json", &want)
	f := s.shapModel(which)
	explain := func(x []float64) (shap.KernelResult, error) { return shap.Kernel(f, x, s.bg, shap.KernelOptions{}) }
	if which == "xgboost" { // as explanation does for a tree artifact
		explain = func(x []float64) (shap.KernelResult, error) {
			return shap.KernelTree(s.model, x, s.bg, shap.KernelOptions{Workers: runtime.GOMAXPROCS(0)})
		}
	}
	var hybrid timing
	if which == "xgboost" && os.Getenv("VIGIL_BENCH_EXPLAIN_HYBRID") != "" { // the hybrid rows through the forest, as before KernelTree
		hybrid = measure(b, func() {
			for _, x := range s.rows[:s.kernelRows] {
				if _, err := shap.Kernel(f, x, s.bg, shap.KernelOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	maxdiff := 0.0
	vigil := measure(b, func() {
		for i, x := range s.rows[:s.kernelRows] {
			r, err := explain(x)
			if err != nil {
				b.Fatal(err)
			}
			for j, v := range r.Values {
				maxdiff = max(maxdiff, math.Abs(v-want.Values[i][j]))
			}
		}
	})
	reportExplain(b, vigil, ref, maxdiff)
	if hybrid.cpu > 0 {
		b.Logf("hybrid rows (shap.Kernel over RawRows): %.3f s wall, %.3f s CPU; KernelTree %.1fx less CPU", hybrid.wall, hybrid.cpu, hybrid.cpu/vigil.cpu)
		b.ReportMetric(hybrid.cpu, "hybrid-cpu-s")
	}
}

// predict times evaluating the XGBoost model over the rows (5 passes)
// against XGBoost's own predict (every core) on the same rows: Raw row by
// row (the walk of the nodes), blocks of 64 rows over the nodes (RawRows
// before its flat layout), RawRows on one goroutine and on GOMAXPROCS.
func (s *explainSetup) predict(b *testing.B) {
	const passes = 5
	rows := s.rows[:min(len(s.rows), 10_000)]
	ref := s.reference(b, "predict", strconv.Itoa(len(rows)), "xgboost", strconv.Itoa(passes))
	out := make([]float64, len(rows))
	naive := measure(b, func() {
		for range passes {
			for i, x := range rows {
				out[i] = s.model.Raw(x)
			}
		}
	})
	blocked := measure(b, func() { // RawRows before the flat layout: blocks of 64 rows over the Node structs
		for range passes {
			for from := 0; from < len(rows); from += 64 {
				block, sums := rows[from:min(from+64, len(rows))], out[from:min(from+64, len(rows))]
				clear(sums)
				for ti := range s.model.Trees {
					for r, x := range block {
						sums[r] += s.model.Leaf(&s.model.Trees[ti], x).Value
					}
				}
				for r := range sums {
					sums[r] = s.model.Base + s.model.Scale*sums[r]
				}
			}
		}
	})
	one := measure(b, func() {
		for range passes {
			s.model.RawRows(rows, out)
		}
	})
	f := s.shapModel("xgboost")
	all := measure(b, func() {
		for range passes {
			if _, err := f(rows); err != nil {
				b.Fatal(err)
			}
		}
	})
	var margins []float64
	s.readJSON(b, "margin.json", &margins)
	maxdiff := 0.0
	for i, y := range out {
		maxdiff = max(maxdiff, math.Abs(y-margins[i]))
	}
	reportExplain(b, all, ref, maxdiff)
	b.ReportMetric(naive.cpu, "raw-cpu-s")
	b.ReportMetric(blocked.cpu, "blocked-cpu-s")
	b.ReportMetric(one.cpu, "rawrows1-cpu-s")
	b.Logf("%d rows x %d passes: XGBoost predict %.3f s wall %.3f s CPU; Raw row by row %.3f s wall %.3f s CPU; blocks over Nodes (before) %.3f s wall %.3f s CPU; RawRows 1 goroutine %.3f s wall %.3f s CPU; RawRows %d goroutines %.3f s wall %.3f s CPU",
		len(rows), passes, ref.wall, ref.cpu, naive.wall, naive.cpu, blocked.wall, blocked.cpu, one.wall, one.cpu, runtime.GOMAXPROCS(0), all.wall, all.cpu)
}

// lime times LIME on the first rows against lime's LimeTabularExplainer:
// 5,000 samples drawn from the background's means and deviations, every
// feature kept, as artifact.Artifact.Compute does for an uploaded tree
// file: one sample and the model's outputs on it serve every row
// (lime.WithInstance), each row adding its own output and fit. vigil-s
// includes drawing and labelling the sample (a model's first
// explanations); vigil-warm-s and x-warm time the rows alone, the sample
// already kept (every explanation of the model after them).
func (s *explainSetup) lime(b *testing.B, which string) {
	ref := s.reference(b, "lime", strconv.Itoa(s.limeRows), which)
	f := s.shapModel(which)
	mean, err := shap.Mean(s.bg, len(s.rows[0]))
	if err != nil {
		b.Fatal(err)
	}
	scale := make([]float64, len(mean))
	for _, r := range s.bg {
		for j, v := range r {
			scale[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range scale {
		scale[j] = math.Sqrt(scale[j] / float64(len(s.bg)))
	}
	var shared [][]float64
	var labels []float64
	explainRows := func() {
		for _, x := range s.rows[:s.limeRows] {
			scaled, err := lime.WithInstance(shared, x, mean, scale)
			if err != nil {
				b.Fatal(err)
			}
			out, err := f([][]float64{x})
			if err != nil {
				b.Fatal(err)
			}
			own := slices.Clone(labels)
			own[0] = out[0]
			if _, err := lime.Explain(lime.Input{Scaled: scaled, Labels: own, Selection: "none"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	vigil := measure(b, func() {
		rows, scaled, err := lime.Sample(mean, mean, scale, 5000, false, 1)
		if err != nil {
			b.Fatal(err)
		}
		if labels, err = f(rows); err != nil {
			b.Fatal(err)
		}
		shared = scaled
		explainRows()
	})
	warm := measure(b, explainRows)
	b.ReportMetric(warm.wall, "vigil-warm-s")
	b.ReportMetric(ref.wall/warm.wall, "x-warm")
	reportExplain(b, vigil, ref, -1)
}

package artifact

import "github.com/vigilhq/vigil/stats/shap"

// Progress is how far a computation (a pending explanation's) is: Done of
// Total units of work (0 of 0 until it reports).
type Progress struct {
	Done, Total int64
	// Unit is ProgressCoalitions (Kernel SHAP) or ProgressRows (LIME's
	// perturbation sample).
	Unit string
}

// Units of Progress.
const (
	ProgressCoalitions = "coalitions"
	ProgressRows       = "rows"
)

// A Reporter passes a running computation's progress on (Progress):
// Kernel SHAP's coalitions evaluated, LIME's sample rows labelled. batch
// is the rows of one call of a served model (0 in process): the work is
// split into whole batches, so that reporting costs no extra request. A
// nil Reporter reports nothing and splits nothing.
type Reporter struct {
	batch int
	// Report is passed each step.
	Report func(Progress)
}

// Served is r for a model called in batches of batch rows.
func (r *Reporter) Served(batch int) *Reporter {
	if r == nil {
		return nil
	}
	return &Reporter{batch: batch, Report: r.Report}
}

// kernel sets opt's progress hook.
func (r *Reporter) kernel(opt shap.KernelOptions) shap.KernelOptions {
	if r != nil {
		opt.Batch = r.batch
		opt.Progress = func(done, total int) {
			r.Report(Progress{Done: int64(done), Total: int64(total), Unit: ProgressCoalitions})
		}
	}
	return opt
}

// label returns model's outputs for rows, in steps of whole batches
// reporting each (one call without a Reporter).
func (r *Reporter) label(model shap.Model, rows [][]float64) ([]float64, error) {
	if r == nil {
		return model(rows)
	}
	unit := max(1, r.batch)
	step := max(unit, len(rows)/shap.ProgressSteps/unit*unit)
	out := make([]float64, 0, len(rows))
	for from := 0; from < len(rows); from += step {
		part, err := model(rows[from:min(from+step, len(rows))])
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
		r.Report(Progress{Done: int64(len(out)), Total: int64(len(rows)), Unit: ProgressRows})
	}
	return out, nil
}

package explanation

import "github.com/vigilhq/vigil/stats/shap"

// A reporter passes a running job's progress on (Progress): Kernel SHAP's
// coalitions evaluated, LIME's sample rows labelled. batch is the rows
// of one call of a served model (0 in process): the work is split into
// whole batches, so that reporting costs no extra request. A nil
// reporter reports nothing and splits nothing.
type reporter struct {
	batch  int
	report func(Progress)
}

// served is r for a model called in batches of batch rows.
func (r *reporter) served(batch int) *reporter {
	if r == nil {
		return nil
	}
	return &reporter{batch: batch, report: r.report}
}

// kernel sets opt's progress hook.
func (r *reporter) kernel(opt shap.KernelOptions) shap.KernelOptions {
	if r != nil {
		opt.Batch = r.batch
		opt.Progress = func(done, total int) {
			r.report(Progress{Done: int64(done), Total: int64(total), Unit: ProgressCoalitions})
		}
	}
	return opt
}

// label returns model's outputs for rows, in steps of whole batches
// reporting each (one call without a reporter).
func (r *reporter) label(model shap.Model, rows [][]float64) ([]float64, error) {
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
		r.report(Progress{Done: int64(len(out)), Total: int64(len(rows)), Unit: ProgressRows})
	}
	return out, nil
}

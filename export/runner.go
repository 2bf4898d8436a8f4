package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

// Defaults and bounds of a Runner.
const (
	defaultPoll = 5 * time.Second
	// Stale is how long a job in progress may go without an update before
	// another runner takes it over (its runner is taken to have stopped).
	Stale = 2 * time.Minute
	// MaxAttempts is how many runs may claim a job; the next fails it.
	MaxAttempts = 3
)

// Runner renders owed export jobs, one at a time, into Files. The store is
// its queue: on start, on every Poll tick and when woken it reads the
// owed jobs and claims each by a compare-and-swap, so that a job outlives
// a restart (pending, or in progress and stale, it is claimed again) and
// two replicas never render the same job at once. Each stage stores the
// progress; a job cancelled meanwhile loses the next compare-and-swap and
// the runner drops it and its file. A file is rendered into a temporary
// file of Scratch, then put in Files, and only once Files holds it whole
// is the job marked completed: a file store that fails the put fails the
// job with a reason that says to ask again, never completes it.
type Runner struct {
	Jobs JobStore
	// Branding, when set, brands every report with the organization's
	// branding as it is when the report is rendered.
	Branding BrandingStore
	Sources  report.Sources
	// Evidence are the stores an evidence pack reads beyond a report's.
	Evidence Evidence
	// Files keeps the generated files; Scratch is the local folder they
	// are rendered in first (empty: the system's temporary folder).
	Files   Files
	Scratch string
	Poll    time.Duration
	// Retention, when positive, is how long a completed job's file is
	// kept: at each poll the runner removes the files of jobs completed
	// longer ago and marks them expired.
	Retention time.Duration
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger
	// Finished, when set, is told each run's outcome: StatusCompleted,
	// StatusFailed, or StatusCancelled when the job was cancelled or
	// taken over meanwhile.
	Finished func(outcome string)

	wake clock.Waker
}

func (r *Runner) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

// Wake asks the Runner to read the store for owed jobs now.
func (r *Runner) Wake() {
	if r != nil {
		r.wake.Wake()
	}
}

// Run renders owed jobs until ctx ends. A job cut short by the end of
// ctx stays in progress and is taken over once stale.
func (r *Runner) Run(ctx context.Context) error {
	if r.Scratch != "" {
		if err := os.MkdirAll(r.Scratch, 0o750); err != nil {
			return fmt.Errorf("export scratch folder: %w", err)
		}
	}
	poll := r.Poll
	if poll <= 0 {
		poll = defaultPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for ctx.Err() == nil {
		if err := r.Expire(ctx); err != nil && ctx.Err() == nil {
			r.log().Warn("expiring export jobs failed", "err", err)
		}
		jobs, err := r.Jobs.OwedExportJobs(ctx, r.Clock.Now().Add(-Stale), 10)
		if err != nil && ctx.Err() == nil {
			r.log().Warn("reading owed export jobs failed", "err", err)
		}
		for _, j := range jobs {
			if ctx.Err() != nil {
				break
			}
			r.run(ctx, j)
		}
		if len(jobs) == 10 {
			continue
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-r.wake.C():
		}
	}
	return nil
}

// errDropped says the job changed under the runner (cancelled, or taken
// over): it stops without writing.
var errDropped = errors.New("export job changed meanwhile")

// step stores j with the progress given, from the stored version *was.
func (r *Runner) step(ctx context.Context, j *Job, was *Job, progress int) error {
	j.Progress, j.UpdatedAt = progress, nextUpdate(was.UpdatedAt, r.Clock.Now())
	err := r.Jobs.SaveExportJob(ctx, *j, *was)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return errDropped
	}
	if err == nil {
		*was = *j
	}
	return err
}

// run claims j and renders it.
func (r *Runner) run(ctx context.Context, j Job) {
	was := j
	j.Status, j.Attempts = StatusInProgress, j.Attempts+1
	if j.Attempts > MaxAttempts {
		r.finish(ctx, &j, &was, fmt.Errorf("the export was interrupted %d times; ask for it again", MaxAttempts))
		return
	}
	if err := r.step(ctx, &j, &was, 10); err != nil {
		if !errors.Is(err, errDropped) && ctx.Err() == nil {
			r.log().Error("claiming an export job failed", "export_id", j.ID, "err", err)
		}
		return
	}
	err := r.render(ctx, &j, &was)
	if ctx.Err() != nil || errors.Is(err, errDropped) {
		r.remove(ctx, j)
		return
	}
	r.finish(ctx, &j, &was, err)
}

// render gathers, builds and writes the report (or the evidence pack),
// storing the progress, the file's size and its SHA-256.
func (r *Runner) render(ctx context.Context, j, was *Job) error {
	d, err := report.Gather(ctx, r.Sources, report.Request{OrgID: j.OrgID, Models: j.Models, From: j.Start, To: j.End})
	if err != nil {
		return fmt.Errorf("reading the report's data: %w", err)
	}
	if err := r.step(ctx, j, was, 50); err != nil {
		return err
	}
	spec := j.Template.Spec()
	spec.GeneratedAt = r.Clock.Now()
	if r.Branding != nil {
		b, err := r.Branding.Branding(ctx, j.OrgID)
		if err != nil {
			return fmt.Errorf("reading the organization's branding: %w", err)
		}
		spec.Brand = b.Brand()
	}
	write := func(w io.Writer) error { return report.Render(w, report.Build(d, spec), j.Format) }
	j.File = j.ID + "." + extensions[j.Format]
	if j.Pack() {
		write = func(w io.Writer) error { return r.writePack(ctx, w, *j, d, spec) }
	}
	if j.Zipped() {
		j.File = j.ID + ".zip"
	}
	tmp, err := os.CreateTemp(r.Scratch, j.ID+"-*.tmp")
	if err != nil {
		return fmt.Errorf("writing the export: %w", err)
	}
	defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
	sum := sha256.New()
	counted := &countWriter{w: io.MultiWriter(tmp, sum)}
	if err := write(counted); err != nil {
		return err
	}
	j.Size, j.Digest = counted.n, hex.EncodeToString(sum.Sum(nil))
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("writing the export: %w", err)
	}
	// A put must end well before the job turns stale: another runner
	// would take the job over and this one then remove the file it put.
	putCtx, cancel := context.WithTimeout(ctx, Stale/2)
	defer cancel()
	if err := r.Files.Put(putCtx, j.File, tmp, j.Size); err != nil {
		return fmt.Errorf("the file store did not keep the export's file (ask for the export again): %w", err)
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// finish stores j completed, or failed with err's reason.
func (r *Runner) finish(ctx context.Context, j, was *Job, err error) {
	now := nextUpdate(was.UpdatedAt, r.Clock.Now())
	progress := 100
	j.Status, j.CompletedAt = StatusCompleted, &now
	if err != nil {
		r.remove(ctx, *j)
		j.Status, j.Error, j.File, j.Size, j.Digest, progress = StatusFailed, err.Error(), "", 0, "", j.Progress
	}
	serr := r.step(ctx, j, was, progress)
	outcome := j.Status
	if errors.Is(serr, errDropped) {
		r.remove(ctx, *j)
		outcome = StatusCancelled
	} else if serr != nil && ctx.Err() == nil {
		r.log().Error("storing an export job failed", "export_id", j.ID, "err", serr)
	}
	if r.Finished != nil && (serr == nil || errors.Is(serr, errDropped)) {
		r.Finished(outcome)
	}
}

// removeTimeout bounds the removal of a dropped job's file.
const removeTimeout = 30 * time.Second

// remove deletes j's file, if any, even once ctx has ended (a shutdown
// cut the job short): a file the store keeps anyway is replaced when the
// job is rendered again, or removed by retention.
func (r *Runner) remove(ctx context.Context, j Job) {
	if j.File == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := r.Files.Delete(ctx, j.File); err != nil {
		r.log().Warn("removing a dropped export's file failed", "export_id", j.ID, "err", err)
	}
}

// Expire removes the files of the jobs completed more than Retention ago
// and marks each expired (nothing when Retention is not positive). The
// file goes first: a job whose mark is lost to a crash keeps no file and
// is expired at the next sweep; a job another replica changed meanwhile
// is left to it.
func (r *Runner) Expire(ctx context.Context) error {
	if r.Retention <= 0 {
		return nil
	}
	for {
		jobs, err := r.Jobs.ExpiringExportJobs(ctx, r.Clock.Now().Add(-r.Retention), 50)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if j.File != "" {
				if err := r.Files.Delete(ctx, j.File); err != nil {
					return fmt.Errorf("remove the file of export %s: %w", j.ID, err)
				}
			}
			was := j
			j.Status, j.File, j.UpdatedAt = StatusExpired, "", nextUpdate(was.UpdatedAt, r.Clock.Now())
			if err := r.Jobs.SaveExportJob(ctx, j, was); err != nil && !errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("expire export %s: %w", j.ID, err)
			}
		}
		if len(jobs) < 50 || ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

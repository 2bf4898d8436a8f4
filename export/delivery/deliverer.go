package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/mail"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

// defaultPoll is how often a Deliverer reads the owed deliveries.
const defaultPoll = 5 * time.Second

// sendTimeout bounds one attempt.
const sendTimeout = 30 * time.Second

// EventExport names a webhook delivery of an export.
const EventExport = "export.completed"

// errFinal marks a failure no retry mends (the export failed, the
// integration was deleted, a refused credential or a changed host key): the
// delivery fails at once.
var errFinal = errors.New("not retried")

// Deliverer sends owed deliveries once their export is final: every Poll
// it reads them from the store, claims each by a compare-and-swap (so
// two replicas never send one twice at once) and sends the export's file
// by the integration's type (or the delivery's own method and
// recipients when it names no integration): email (attached, through the SMTP relay),
// webhook (the file posted with X-Vigil-Signature under the
// integration's signing secret, through the outbound guard), s3 (put in
// the bucket under the prefix, Signature V4), sftp (written to the
// directory, the server's host key pinned) or api (nothing to send: the
// file is downloaded through the API). A failed
// try is retried at the next poll, up to MaxAttempts; every outcome is
// stored on the delivery.
type Deliverer struct {
	Deliveries   DeliveryStore
	Integrations Store
	Jobs         export.JobStore
	// Files keeps the exports' files; Box opens the secrets; Guard
	// guards network targets (webhook, S3, SFTP); Relay sends e-mail.
	Files export.Files
	Box   *secretbox.Keyring
	Guard *outbound.Guard
	Relay *mail.Relay
	Poll  time.Duration
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger
}

// guard is the outbound guard of every target: the zero guard (public
// addresses only) when none is set.
func (d *Deliverer) guard() *outbound.Guard {
	if d.Guard == nil {
		return &outbound.Guard{}
	}
	return d.Guard
}

func (d *Deliverer) log() *slog.Logger {
	if d.Log == nil {
		return slog.Default()
	}
	return d.Log
}

// Run sends owed deliveries until ctx ends.
func (d *Deliverer) Run(ctx context.Context) error {
	poll := d.Poll
	if poll <= 0 {
		poll = defaultPoll
	}
	clock.Every(ctx, poll, d.Tick, func(err error) { d.log().Warn("export deliveries failed", "err", err) })
	return nil
}

// Tick tries every owed delivery once.
func (d *Deliverer) Tick(ctx context.Context) error {
	owed, err := d.Deliveries.OwedExportDeliveries(ctx, d.Clock.Now(), 20)
	if err != nil {
		return err
	}
	for _, dl := range owed {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := d.attempt(ctx, dl); err != nil && !errors.Is(err, store.ErrConflict) {
			d.log().Warn("an export delivery failed to save", "delivery", dl.ID, "err", err)
		}
	}
	return nil
}

// next is a change time after was, so that every change moves the
// compare-and-swap's key.
func next(was, now time.Time) time.Time {
	if !now.After(was) {
		return was.Add(time.Microsecond)
	}
	return now
}

// attempt claims dl, sends it and stores the outcome.
func (d *Deliverer) attempt(ctx context.Context, dl Delivery) error {
	was := dl
	dl.Attempts++
	dl.UpdatedAt = next(was.UpdatedAt, d.Clock.Now())
	if err := d.Deliveries.SaveExportDelivery(ctx, dl, was); err != nil {
		return err // another replica took it
	}
	claimed := dl
	detail, err := d.send(ctx, &dl)
	switch {
	case err == nil:
		dl.Status, dl.Detail, dl.Error = StatusSent, detail, ""
	case errors.Is(err, errFinal) || dl.Attempts >= MaxAttempts:
		dl.Status, dl.Error = StatusFailed, err.Error()
	default:
		dl.Error = err.Error() // pending: tried again at the next poll
	}
	dl.UpdatedAt = next(claimed.UpdatedAt, d.Clock.Now())
	return d.Deliveries.SaveExportDelivery(ctx, dl, claimed)
}

// send delivers the export of dl to its destination and says where.
func (d *Deliverer) send(ctx context.Context, dl *Delivery) (string, error) {
	j, err := d.Jobs.ExportJob(ctx, dl.OrgID, dl.ExportID)
	if err != nil {
		return "", fmt.Errorf("the export: %w", err)
	}
	if j.Status != export.StatusCompleted {
		return "", fmt.Errorf("%w: the export is %s", errFinal, j.Status)
	}
	in := Integration{Type: dl.Method, Settings: Settings{Recipients: dl.Recipients}}
	if dl.IntegrationID != "" {
		in, err = d.Integrations.ExportIntegration(ctx, dl.OrgID, dl.IntegrationID)
		if errors.Is(err, store.ErrNotFound) {
			return "", fmt.Errorf("%w: the integration was deleted", errFinal)
		} else if err != nil {
			return "", err
		}
		dl.Method = in.Type
	}
	switch {
	case in.Type == TypeAPI || in.Type == export.DeliverDownload:
		return "available at GET /api/v1/export/exports/" + j.ID + "/download", nil
	case dl.IntegrationID == "" && in.Type != TypeEmail:
		return "", fmt.Errorf("%w: the %s delivery names no integration", errFinal, in.Type)
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	file, err := readFile(ctx, d.Files, j.File)
	if errors.Is(err, export.ErrNoFile) {
		return "", fmt.Errorf("%w: the export's file is gone", errFinal)
	} else if err != nil {
		return "", fmt.Errorf("the export's file: %w", err)
	}
	switch in.Type {
	case TypeEmail:
		return d.email(ctx, in.Settings.Recipients, j, file)
	case TypeWebhook:
		return d.webhook(ctx, in, *dl, j, file)
	case TypeS3:
		return d.s3(ctx, in, j, file)
	case TypeSFTP:
		return d.sftp(ctx, in, j, file)
	}
	return "", fmt.Errorf("%w: no sender for %s", errFinal, in.Type)
}

// email mails the file, attached, to each recipient.
func (d *Deliverer) email(ctx context.Context, recipients []string, j export.Job, file []byte) (string, error) {
	from := ""
	if d.Relay != nil {
		from = d.Relay.From
	}
	subject := fmt.Sprintf("[Vigil] %s report %s to %s", j.Template.Name, j.Start.Format(time.DateOnly), j.End.Format(time.DateOnly))
	body := fmt.Sprintf("The %s report of %s to %s is attached (%s, %d bytes).\n", j.Template.Name, j.Start.Format(time.DateOnly),
		j.End.Format(time.DateOnly), j.Format, len(file))
	for _, to := range recipients {
		msg := mail.WithAttachment(from, to, subject, body, j.Filename(), report.ContentTypes[j.Format], file, d.Clock.Now())
		if err := mail.Send(ctx, d.Relay, time.Now().Add(sendTimeout), to, msg); err != nil {
			return "", fmt.Errorf("mail to %s: %w", to, err)
		}
	}
	return fmt.Sprintf("mailed to %d recipients", len(recipients)), nil
}

// webhook posts the file, signed.
func (d *Deliverer) webhook(ctx context.Context, in Integration, dl Delivery, j export.Job, file []byte) (string, error) {
	g := d.guard()
	if _, err := g.CheckURL(in.Settings.URL); err != nil {
		return "", err
	}
	sec, err := Open(d.Box, in)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.Settings.URL, bytes.NewReader(file))
	if err != nil {
		return "", err
	}
	ts := d.Clock.Now().Unix()
	req.Header.Set("Content-Type", report.ContentTypes[j.Format])
	req.Header.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", j.Filename()))
	req.Header.Set("User-Agent", "Vigil-Exports/1")
	req.Header.Set(channels.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(channels.HeaderSignature, channels.Sign([]byte(sec.SigningSecret), ts, file))
	req.Header.Set(channels.HeaderDelivery, dl.ID)
	req.Header.Set(channels.HeaderEvent, EventExport)
	res, err := g.Client(sendTimeout).Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return "", fmt.Errorf("the webhook answered %s", res.Status)
	}
	return "posted to the webhook, answered " + res.Status, nil
}

// readFile reads the file name whole from files.
func readFile(ctx context.Context, files export.Files, name string) ([]byte, error) {
	f, err := files.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

package config

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// flags is serve's flag set while it is declared: each flag's default is
// its environment variable's value when set, and its usage names the
// variable.
type flags struct {
	fs     *flag.FlagSet
	getenv func(string) string
	errs   []error // malformed variables

	// Values that Parse turns into Config fields.
	roles, brokers, logLevel string
	bodyMB                   int

	outboundAllow, smtpRequireTLS string
	exportRetention               string
	exportS3PathStyle             string
}

// envName is the environment variable of the flag name: VIGIL_ and the
// name in capitals, dashes as underscores (--drift-tick: VIGIL_DRIFT_TICK).
func envName(name string) string {
	return "VIGIL_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// lookup returns the flag's variable, parsed by parse, or def when unset.
func lookup[T any](f *flags, name string, def T, parse func(string) (T, error)) T {
	s := f.getenv(envName(name))
	if s == "" {
		return def
	}
	v, err := parse(s)
	if err != nil {
		f.errs = append(f.errs, fmt.Errorf("%s: %w", envName(name), err))
		return def
	}
	return v
}

func (f *flags) str(p *string, name, def, usage string) {
	f.fs.StringVar(p, name, lookup(f, name, def, func(s string) (string, error) { return s, nil }), usage)
}

func (f *flags) int64(p *int64, name string, def int64, usage string) {
	f.fs.Int64Var(p, name, lookup(f, name, def, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }), usage)
}

func (f *flags) int(p *int, name string, def int, usage string) {
	f.fs.IntVar(p, name, lookup(f, name, def, strconv.Atoi), usage)
}

func (f *flags) duration(p *time.Duration, name string, def time.Duration, usage string) {
	f.fs.DurationVar(p, name, lookup(f, name, def, time.ParseDuration), usage)
}

// secrets are read from the environment only, never from a flag, so that
// they stay out of process listings.
var secrets = []string{"VIGIL_ADMIN_PASSWORD", "VIGIL_JWT_SECRET", "VIGIL_MASTER_KEY", "VIGIL_METRICS_TOKEN",
	"VIGIL_SMTP_PASSWORD", "VIGIL_CODEHOST_CLIENT_SECRET", "VIGIL_CODEHOST_OAUTH_STATE_KEY", "VIGIL_TOXICITY_API_KEY",
	"VIGIL_EXPORT_S3_SECRET_ACCESS_KEY"}

// Variables lists every environment variable `vigil serve` reads: one per
// flag (VIGIL_<FLAG>), then the secrets read from the environment only.
// A deployment that sets any other VIGIL_ variable has a typo.
func Variables() []string {
	var vars []string
	register(&Config{}, func(string) string { return "" }).fs.VisitAll(func(fl *flag.Flag) {
		vars = append(vars, envName(fl.Name))
	})
	return append(vars, secrets...)
}

// Usage writes `vigil serve -h`: every flag with its type, meaning,
// environment variable and default (as the environment getenv makes it).
func Usage(w io.Writer, getenv func(string) string) {
	f := register(&Config{}, getenv)
	fmt.Fprint(w, "Usage: vigil serve [flags]\n\nEach flag takes its default from the environment variable named under it.\n\n")
	f.fs.VisitAll(func(fl *flag.Flag) {
		kind, def := "string", strconv.Quote(fl.DefValue)
		switch v := fl.Value.(flag.Getter).Get().(type) {
		case time.Duration:
			kind, def = "duration", Duration(v)
		case int, int64:
			kind, def = "int", fl.DefValue
		}
		fmt.Fprintf(w, "  --%s %s\n        %s\n        %s (default %s)\n", fl.Name, kind, fl.Usage, envName(fl.Name), def)
	})
	fmt.Fprintf(w, "\nDurations are written like 500ms, 30s, 1m or 1h30m.\nSecrets come from the environment only: %s.\n", strings.Join(secrets, ", "))
}

// Duration writes d as time.ParseDuration reads it, without the zero
// units time.Duration.String leaves: 1m rather than 1m0s.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

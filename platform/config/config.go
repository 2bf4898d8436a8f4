// Package config holds Vigil's configuration: flags with VIGIL_* environment
// variables as their defaults. With nothing set, Vigil runs on the embedded
// default: SQLite in the data folder and in-process limits.
//
// It imports nothing of Vigil.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Roles a process can run: --roles api,processor lets API replicas and
// processor replicas (one consumer group) scale apart; the default runs
// both. ARCHITECTURE.md shows what each role starts.
const (
	RoleAPI       = "api"
	RoleProcessor = "processor"
)

// AllRoles is the default of --roles.
var AllRoles = []string{RoleAPI, RoleProcessor}

// Registration modes of POST /auth/register.
const (
	// RegistrationAdmin: only an authenticated admin registers users, into
	// the admin's own organization.
	RegistrationAdmin = "admin"
	// RegistrationOpen: anyone may register; an anonymous registration
	// creates a new organization whose admin is the new user.
	RegistrationOpen = "open"
)

// MinMetricsToken is the shortest VIGIL_METRICS_TOKEN accepted.
const MinMetricsToken = 16

// Limits are the per-organization rate limits, in requests per hour.
type Limits struct {
	Standard    int64 `json:"standard"`
	Predictions int64 `json:"predictions"`
	Batch       int64 `json:"batch"`
	Reports     int64 `json:"reports"`
}

// AutoExplain bounds the processor role's auto-explainer (issue 16):
// the default sampled share, the work per second and the ratio's refresh.
type AutoExplain struct {
	// Percent of a model's logged predictions explained when its
	// configuration names no auto_explain_rate (0 to 100).
	Percent int `json:"percent"`
	// PerSecond bounds the explanations one processor computes a second.
	PerSecond int `json:"per_second"`
	// Refresh is how often explained_predictions_ratio is recomputed.
	Refresh time.Duration `json:"refresh"`
}

// Toxicity chooses the toxicity scorer of POST /llm/toxicity and of the
// completions checked on arrival.
type Toxicity struct {
	// URL is an HTTP scorer's endpoint; empty: the built-in lexicon.
	URL string `json:"url"`
	// Format is the HTTP scorer's request shape: perspective, openai or
	// plain.
	Format string `json:"format"`
	// Key is sent to the HTTP scorer (VIGIL_TOXICITY_API_KEY); not logged.
	Key string `json:"-"`
	// SamplePercent of the logged completions are checked on arrival
	// (0 to 100).
	SamplePercent int `json:"sample_percent"`
}

// Bias are the limits of the bias audit runner (bias.Runner) of the API
// role. Zero takes the runner's default.
type Bias struct {
	// Workers is how many audits run at a time (default 2).
	Workers int `json:"workers"`
	// Queue is how many accepted audits may wait (default 64); beyond,
	// POST /bias/audit answers 503.
	Queue int `json:"queue"`
	// MaxRows bounds one audit's rows (default 1,000,000): the newest
	// logged predictions read, the longest y_pred accepted.
	MaxRows int `json:"max_rows"`
}

// SMTP is the mail relay of alert e-mails (alerts/channels).
type SMTP struct {
	// Addr is host:port; empty, e-mail channels fail.
	Addr, From, Username string
	// Password comes from VIGIL_SMTP_PASSWORD only.
	Password string
	// CAFile, when set, holds the certificates that the relay's is
	// checked against instead of the system's.
	CAFile string
	// RequireTLS refuses a relay that does not offer STARTTLS.
	RequireTLS bool
}

// ExportS3 is the S3-compatible bucket that keeps generated export
// files instead of the data folder (VIGIL_EXPORT_S3_*); off while
// Endpoint is empty.
type ExportS3 struct {
	// Endpoint is the store's http or https URL; Bucket must exist;
	// Prefix is put before every file's name; Region defaults to
	// us-east-1.
	Endpoint, Bucket, Prefix, Region string
	// AccessKeyID signs with SecretAccessKey, read from
	// VIGIL_EXPORT_S3_SECRET_ACCESS_KEY only.
	AccessKeyID, SecretAccessKey string
	// PathStyle names the bucket in the path instead of the host name.
	PathStyle bool
}

// Config is the effective configuration of one process.
type Config struct {
	// Version is the binary's version, set by cmd/vigil (no flag reads
	// it): vigil_build_info's label.
	Version     string
	Addr        string
	DataDir     string
	Roles       []string
	PostgresURL string
	RedisURL    string
	// RedisPrefix starts every key Vigil writes to Redis, so that several
	// deployments can share one server.
	RedisPrefix  string
	KafkaBrokers []string
	// KafkaTopicPrefix starts the event log's topic names and its consumer
	// group's, so that deployments can share a cluster.
	KafkaTopicPrefix string
	// KafkaInstanceID, when set, makes this processor a static member of
	// the consumer group (e.g. a StatefulSet's pod name): restarted with
	// the same id, it takes its partitions back at once instead of the
	// group waiting out the dead member's session timeout (45 s). Every
	// processor needs its own id.
	KafkaInstanceID string
	// KafkaProducers is how many producer clients the API spreads its
	// appends over (1 to 64; 1 by default).
	KafkaProducers int
	ClickHouseURL  string
	// ClickHouseIDFilterMB bounds, in MiB, the memory of the filters of
	// stored prediction ids that spare the ClickHouse sink a read per
	// batch (analytics/clickhouse; 256 by default, 0 keeps none).
	ClickHouseIDFilterMB int

	AdminUsername string
	AdminPassword string
	// JWTSecret signs login tokens; when empty a secret is generated once
	// and kept in the transactional store, shared by every replica.
	JWTSecret    string
	Registration string
	// MasterKey is the master key ring that seals secrets kept in the
	// store (VIGIL_MASTER_KEY, "id:base64" keys separated by commas, the
	// first sealing); when empty the ring is read from MasterKeyFile.
	MasterKey string
	// MasterKeyFile holds the master key ring, one "id:base64" key a line;
	// it is created with a new key when missing. Its default lies in the
	// user's configuration folder, outside the data folder, so that a copy
	// of the data alone opens nothing.
	MasterKeyFile string

	Limits    Limits
	BodyLimit int
	// AuthCacheTTL is how long a replica keeps an authenticated principal;
	// 0 reads the store on every request.
	AuthCacheTTL time.Duration
	// StaleIfError is how much longer than its lifetime a cached principal
	// or model may serve ingest while the transactional store is
	// unavailable; 0 serves none stale.
	StaleIfError   time.Duration
	RequestTimeout time.Duration
	ShutdownGrace  time.Duration
	// DriftTick is how often the processor role looks for models whose
	// drift schedule is due.
	DriftTick time.Duration
	// ProcessorStuckAfter is how long the processor may fail without
	// finishing a batch before its readiness check fails and it logs an
	// error (once per this interval).
	ProcessorStuckAfter time.Duration
	// IngestMaxBacklog is how many records the processors may have left to
	// store before ingest waits for them (ingest/backlog); 0 never waits.
	IngestMaxBacklog int64
	// DashboardInterval is how often the dashboard's live channel pushes.
	DashboardInterval time.Duration
	// KServePairTimeout is how long the half of a KServe request/response
	// pair waits for the other before it is set aside as a dead letter.
	KServePairTimeout time.Duration
	// Bias are the bias audit runner's limits.
	Bias     Bias
	Toxicity Toxicity
	// ExplainWorkers is how many explanations the API role computes at a
	// time (explainjob.Runner; 0: 2). Negative runs none in this
	// process: its explanations wait, pending, for a replica that does.
	ExplainWorkers int
	// AutoExplain bounds the processor role's auto-explainer.
	AutoExplain AutoExplain
	LogLevel    slog.Level

	// AlertTick is how often the processor role looks for complete
	// minutes to evaluate alert rules on; AlertSettle is how long after a
	// minute ends the event log holds its events; the minute is then
	// evaluated once the processors have landed them (processors/alerting).
	AlertTick, AlertSettle time.Duration
	// OutboundAllow lists the addresses and CIDR prefixes alert webhooks
	// may reach although they are not public (platform/outbound).
	OutboundAllow []string
	// SMTP is the relay alert e-mails go through.
	SMTP SMTP
	// ExportRetention is how long a completed export's file is kept
	// (spec 1's report history retention by plan); 0 keeps it forever.
	ExportRetention time.Duration
	// ExportS3, when its Endpoint is set, keeps generated files in a
	// bucket instead of <data-dir>/exports.
	ExportS3 ExportS3

	// MetricsAddr, when set, is a listener of its own for /metrics, open
	// to whoever reaches it; the API's address then does not serve it.
	MetricsAddr string
	// MetricsToken, when set, is the bearer token /metrics asks for
	// wherever it is served. Without either, /metrics answers clients on
	// loopback only.
	MetricsToken string
	// CodehostAPIURL is the code host's REST API that connections call.
	CodehostAPIURL string
	// CodehostFlavor is the API that CodehostAPIURL speaks: github (and
	// GitHub Enterprise) or gitea.
	CodehostFlavor string
	// CodehostOAuth is the code host's OAuth application; OAuth
	// connections are off while its ClientID is empty.
	CodehostOAuth CodehostOAuth
}

// CodehostOAuth configures OAuth connections to the code host.
type CodehostOAuth struct {
	// URL is the code host's site root (authorize and token endpoints).
	URL string
	// ClientID and ClientSecret (VIGIL_CODEHOST_CLIENT_SECRET) identify
	// the OAuth application.
	ClientID, ClientSecret string
	// StateKey (VIGIL_CODEHOST_OAUTH_STATE_KEY, at least MinStateKey
	// characters) signs the OAuth state.
	StateKey string
	// ReturnURL is where the browser goes once connected.
	ReturnURL string
}

// MinStateKey is the shortest VIGIL_CODEHOST_OAUTH_STATE_KEY accepted.
const MinStateKey = 32

// Parse reads flags from args (after the subcommand), with defaults from
// the environment lookup getenv (os.Getenv in production). Every flag
// takes its default from the variable named after it (flags.envName); -h
// answers flag.ErrHelp, and Usage prints the help.
func Parse(args []string, getenv func(string) string) (Config, error) {
	var c Config
	f := register(&c, getenv)
	if err := errors.Join(f.errs...); err != nil {
		return Config{}, err
	}
	if err := f.fs.Parse(args); err != nil {
		return Config{}, err
	}
	c.AdminPassword = getenv("VIGIL_ADMIN_PASSWORD")
	c.JWTSecret = getenv("VIGIL_JWT_SECRET")
	c.MasterKey = getenv("VIGIL_MASTER_KEY")
	c.MetricsToken = getenv("VIGIL_METRICS_TOKEN")
	c.Toxicity.Key = getenv("VIGIL_TOXICITY_API_KEY")
	c.BodyLimit = f.bodyMB << 20
	c.Roles = splitList(f.roles)
	c.KafkaBrokers = splitList(f.brokers)
	c.OutboundAllow = splitList(f.outboundAllow)
	c.SMTP.Password = getenv("VIGIL_SMTP_PASSWORD")
	c.CodehostOAuth.ClientSecret = getenv("VIGIL_CODEHOST_CLIENT_SECRET")
	c.CodehostOAuth.StateKey = getenv("VIGIL_CODEHOST_OAUTH_STATE_KEY")
	c.ExportS3.SecretAccessKey = getenv("VIGIL_EXPORT_S3_SECRET_ACCESS_KEY")
	var err error
	if c.SMTP.RequireTLS, err = strconv.ParseBool(f.smtpRequireTLS); err != nil {
		return Config{}, fmt.Errorf("smtp-require-tls: %w", err)
	}
	if c.ExportS3.PathStyle, err = strconv.ParseBool(f.exportS3PathStyle); err != nil {
		return Config{}, fmt.Errorf("export-s3-path-style: %w", err)
	}
	if c.ExportRetention, err = ExportRetention(f.exportRetention); err != nil {
		return Config{}, fmt.Errorf("export-retention: %w", err)
	}
	if err := c.LogLevel.UnmarshalText([]byte(f.logLevel)); err != nil {
		return Config{}, fmt.Errorf("log level: %w", err)
	}
	return c, c.validate()
}

// register declares serve's flags into c, each defaulting to its variable.
func register(c *Config, getenv func(string) string) *flags {
	f := &flags{fs: flag.NewFlagSet("serve", flag.ContinueOnError), getenv: getenv}
	f.fs.SetOutput(io.Discard) // Usage prints the help, once
	f.fs.Usage = func() {}
	f.str(&c.Addr, "addr", "127.0.0.1:8080", "listen address of the API and the operational endpoints")
	f.str(&c.DataDir, "data-dir", "./vigil-data", "data folder of the embedded default")
	f.str(&f.roles, "roles", strings.Join(AllRoles, ","), "roles to run: api,processor")
	f.str(&c.PostgresURL, "postgres-url", "", "PostgreSQL URL; empty: SQLite in the data folder")
	f.str(&c.RedisURL, "redis-url", "", "Redis URL for shared limits and caches; empty: in-process")
	f.str(&c.RedisPrefix, "redis-prefix", "vigil:", "prefix of every Redis key")
	f.str(&f.brokers, "kafka-brokers", "", "comma-separated Kafka brokers; empty: embedded log")
	f.str(&c.KafkaTopicPrefix, "kafka-topic-prefix", "vigil.", "prefix of the event log's topics and consumer group")
	f.str(&c.KafkaInstanceID, "kafka-instance-id", "", "this processor's static consumer-group member id; empty: dynamic membership")
	f.int(&c.KafkaProducers, "kafka-producers", 1, "producer clients the API spreads its appends over (each keeps one produce request in flight)")
	f.str(&c.ClickHouseURL, "clickhouse-url", "", "ClickHouse URL; empty: SQLite")
	f.int(&c.ClickHouseIDFilterMB, "clickhouse-id-filter-mb", 256, "MiB the ClickHouse sink's filters of stored prediction ids may take; 0: none, every batch reads the ids")
	f.str(&c.AdminUsername, "admin-username", "admin", "first admin's username")
	f.str(&c.MasterKeyFile, "master-key-file", defaultMasterKeyFile(), "master key file sealing stored secrets, created when missing; back it up apart from the data")
	f.str(&c.Registration, "registration", RegistrationAdmin, "who may register: admin or open")
	f.int64(&c.Limits.Standard, "rate-limit-standard", 1000, "standard requests per hour per organization")
	f.int64(&c.Limits.Predictions, "rate-limit-predictions", 10000, "prediction-logging requests per hour per organization")
	f.int64(&c.Limits.Batch, "rate-limit-batch", 100, "batch requests per hour per organization")
	f.int64(&c.Limits.Reports, "rate-limit-reports", 10, "report generations per hour per organization")
	f.int(&f.bodyMB, "body-limit-mb", 10, "largest request body in MiB")
	f.duration(&c.AuthCacheTTL, "auth-cache-ttl", time.Second, "how long a principal stays cached; 0 disables the cache")
	f.duration(&c.StaleIfError, "stale-if-error", 5*time.Minute, "how long past its lifetime a cached API key, user or model still serves while PostgreSQL is unreachable; 0 disables")
	f.duration(&c.RequestTimeout, "request-timeout", 30*time.Second, "per-request timeout")
	f.duration(&c.DriftTick, "drift-tick", time.Minute, "how often due drift schedules are looked for")
	f.duration(&c.ProcessorStuckAfter, "processor-stuck-after", time.Minute, "how long the processor may fail without finishing a batch before its readiness check fails and it logs an error")
	f.int64(&c.IngestMaxBacklog, "ingest-max-backlog", 100_000, "records the processors may have left to store before ingest requests wait for them; 0 never waits")
	f.duration(&c.DashboardInterval, "dashboard-interval", 5*time.Second, "how often the dashboard's live channel (/dashboard/ws) pushes its figures")
	f.duration(&c.KServePairTimeout, "kserve-pair-timeout", 15*time.Minute, "how long a KServe request waits for its response (and the reverse) before it is a dead letter")
	f.int(&c.Bias.Workers, "bias-workers", 0, "bias audits run at a time; 0: 2")
	f.int(&c.Bias.Queue, "bias-queue", 0, "bias audits that may wait to run; 0: 64")
	f.int(&c.Bias.MaxRows, "bias-max-rows", 0, "rows of one bias audit at most; 0: 1000000")
	f.str(&c.Toxicity.URL, "toxicity-url", "", "HTTP toxicity scorer's endpoint (its target passes the outbound guard); empty: the built-in lexicon")
	f.str(&c.Toxicity.Format, "toxicity-format", "plain", "the HTTP toxicity scorer's request shape: perspective, openai or plain")
	f.int(&c.Toxicity.SamplePercent, "toxicity-sample-percent", 0, "percent of logged LLM completions checked for toxicity on arrival")
	f.int(&c.AutoExplain.Percent, "auto-explain-percent", 10, "percent of a model's logged predictions auto-explained when its configuration names no auto_explain_rate")
	f.int(&c.AutoExplain.PerSecond, "auto-explain-per-second", 20, "explanations one processor computes a second at most on the stream; sampled predictions beyond it are shed")
	f.duration(&c.AutoExplain.Refresh, "auto-explain-refresh", time.Minute, "how often each model's explained_predictions_ratio is recomputed")
	f.int(&c.ExplainWorkers, "explain-workers", 0, "explanations computed at a time; 0: 2; negative: none in this process")
	f.duration(&c.AlertTick, "alert-tick", time.Second, "how often the processor role looks for a complete minute to evaluate alert rules on")
	f.duration(&c.AlertSettle, "alert-settle", 2*time.Second, "how long after a minute ends the event log holds its events; alert evaluation then waits for the processors to commit up to the log's end")
	f.str(&f.outboundAllow, "outbound-allow", "", "comma-separated addresses or CIDR prefixes alert webhooks and the code host may be reached at although not public")
	f.str(&c.SMTP.Addr, "smtp-addr", "", "host:port of the SMTP relay for alert e-mails; empty: e-mail channels fail")
	f.str(&c.SMTP.From, "smtp-from", "vigil@localhost", "sender of alert e-mails")
	f.str(&c.SMTP.Username, "smtp-username", "", "SMTP user (password in VIGIL_SMTP_PASSWORD); empty: no authentication")
	f.str(&c.SMTP.CAFile, "smtp-ca-file", "", "PEM certificates the SMTP relay's is checked against instead of the system's")
	f.str(&f.smtpRequireTLS, "smtp-require-tls", "false", "refuse an SMTP relay that does not offer STARTTLS")
	f.str(&f.exportRetention, "export-retention", "professional", "how long completed exports are kept, by plan: free or starter (30 days), professional (90 days), enterprise (forever); or a duration such as 2160h")
	f.str(&c.ExportS3.Endpoint, "export-s3-endpoint", "", "http(s) URL of an S3-compatible store that keeps generated export files (secret key in VIGIL_EXPORT_S3_SECRET_ACCESS_KEY); empty: the data folder's exports folder")
	f.str(&c.ExportS3.Bucket, "export-s3-bucket", "", "bucket of the export files (it must exist)")
	f.str(&c.ExportS3.Prefix, "export-s3-prefix", "", "prefix of the export files' keys in the bucket")
	f.str(&c.ExportS3.Region, "export-s3-region", "us-east-1", "region the export store's requests are signed for")
	f.str(&c.ExportS3.AccessKeyID, "export-s3-access-key-id", "", "access key id of the export store")
	f.str(&f.exportS3PathStyle, "export-s3-path-style", "false", "name the bucket in the URL's path (most self-hosted stores) instead of its host name")
	f.duration(&c.ShutdownGrace, "shutdown-grace", 30*time.Second, "time to drain on SIGTERM")
	f.str(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	f.str(&c.MetricsAddr, "metrics-addr", "", "serve /metrics on this address of its own (open to whoever reaches it) instead of the API's")
	f.str(&c.CodehostAPIURL, "codehost-api-url", "https://api.github.com/", "the code host's REST API (a GitHub Enterprise or compatible forge: its /api/v3/ or /api/v1/ URL)")
	f.str(&c.CodehostFlavor, "codehost-flavor", "github", "the API the code host speaks: github (GitHub, GitHub Enterprise) or gitea")
	f.str(&c.CodehostOAuth.URL, "codehost-oauth-url", "https://github.com/", "the code host's site root, where OAuth authorizes (login/oauth/authorize) and grants tokens (login/oauth/access_token)")
	f.str(&c.CodehostOAuth.ClientID, "codehost-client-id", "", "client id of the code host OAuth application (secret in VIGIL_CODEHOST_CLIENT_SECRET, state key in VIGIL_CODEHOST_OAUTH_STATE_KEY); empty: OAuth connections off")
	f.str(&c.CodehostOAuth.ReturnURL, "codehost-oauth-return-url", "/", "where the OAuth callback sends the browser once connected (connection_id added to its query)")
	return f
}

func (c Config) validate() error {
	if c.CodehostFlavor != "github" && c.CodehostFlavor != "gitea" {
		return fmt.Errorf("codehost-flavor %q: want github or gitea", c.CodehostFlavor)
	}
	for _, r := range c.Roles {
		if !slices.Contains(AllRoles, r) {
			return fmt.Errorf("unknown role %q: want one of %s", r, strings.Join(AllRoles, ","))
		}
	}
	if len(c.Roles) == 0 {
		return fmt.Errorf("no role to run")
	}
	if c.Registration != RegistrationAdmin && c.Registration != RegistrationOpen {
		return fmt.Errorf("registration %q: want admin or open", c.Registration)
	}
	if c.Limits.Standard <= 0 || c.Limits.Predictions <= 0 || c.Limits.Batch <= 0 || c.Limits.Reports <= 0 {
		return fmt.Errorf("rate limits must be positive")
	}
	if c.AuthCacheTTL < 0 {
		return fmt.Errorf("auth cache TTL must not be negative")
	}
	if c.StaleIfError < 0 {
		return fmt.Errorf("stale-if-error must not be negative")
	}
	if c.DriftTick <= 0 {
		return fmt.Errorf("drift tick must be positive")
	}
	if c.ProcessorStuckAfter <= 0 {
		return fmt.Errorf("processor-stuck-after must be positive")
	}
	if c.DashboardInterval <= 0 {
		return fmt.Errorf("dashboard interval must be positive")
	}
	if c.KServePairTimeout <= 0 {
		return fmt.Errorf("kserve pair timeout must be positive")
	}
	if c.Bias.Workers < 0 || c.Bias.Queue < 0 || c.Bias.MaxRows < 0 {
		return fmt.Errorf("bias workers, queue and max rows must not be negative (0 takes the default)")
	}
	if c.Toxicity.SamplePercent < 0 || c.Toxicity.SamplePercent > 100 {
		return fmt.Errorf("toxicity sample percent must be between 0 and 100")
	}
	if a := c.AutoExplain; a.Percent < 0 || a.Percent > 100 || a.PerSecond <= 0 || a.Refresh <= 0 {
		return fmt.Errorf("auto-explain percent must be between 0 and 100, its per-second budget and refresh positive")
	}
	if !slices.Contains([]string{"perspective", "openai", "plain"}, c.Toxicity.Format) {
		return fmt.Errorf("toxicity format %q: want perspective, openai or plain", c.Toxicity.Format)
	}
	if c.KafkaProducers < 1 || c.KafkaProducers > 64 {
		return fmt.Errorf("kafka producers must be between 1 and 64")
	}
	if c.ClickHouseIDFilterMB < 0 || c.ClickHouseIDFilterMB > 1<<20 {
		return fmt.Errorf("clickhouse id filter MiB must be between 0 and 1048576")
	}
	if c.BodyLimit <= 0 {
		return fmt.Errorf("body limit must be positive")
	}
	if o := c.CodehostOAuth; o.ClientID != "" && (o.ClientSecret == "" || len(o.StateKey) < MinStateKey) {
		return fmt.Errorf("codehost OAuth client %q needs VIGIL_CODEHOST_CLIENT_SECRET and a VIGIL_CODEHOST_OAUTH_STATE_KEY of at least %d characters", o.ClientID, MinStateKey)
	}
	if s := c.ExportS3; s.Endpoint != "" && (s.Bucket == "" || s.AccessKeyID == "" || s.SecretAccessKey == "") {
		return fmt.Errorf("export-s3-endpoint %q needs export-s3-bucket, export-s3-access-key-id and VIGIL_EXPORT_S3_SECRET_ACCESS_KEY", s.Endpoint)
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < MinMetricsToken {
		return fmt.Errorf("VIGIL_METRICS_TOKEN must be at least %d characters", MinMetricsToken)
	}
	return nil
}

// Has reports whether the process runs role.
func (c Config) Has(role string) bool { return slices.Contains(c.Roles, role) }

// LogValue logs the effective configuration with secrets redacted.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("addr", c.Addr),
		slog.String("data_dir", c.DataDir),
		slog.Any("roles", c.Roles),
		slog.String("transactional_store", engine(c.PostgresURL != "", "postgres "+redactURL(c.PostgresURL), "sqlite")),
		slog.String("limits_store", engine(c.RedisURL != "", "redis "+redactURL(c.RedisURL), "in-process")),
		slog.String("event_log", engine(len(c.KafkaBrokers) > 0, "kafka "+strings.Join(c.KafkaBrokers, ",")+" topics "+c.KafkaTopicPrefix+"*", "embedded")),
		slog.String("kafka_instance_id", c.KafkaInstanceID),
		slog.String("analytical_store", engine(c.ClickHouseURL != "", "clickhouse "+redactURL(c.ClickHouseURL), "sqlite")),
		slog.String("admin_username", c.AdminUsername),
		slog.Bool("admin_password_set", c.AdminPassword != ""),
		slog.Bool("jwt_secret_set", c.JWTSecret != ""),
		slog.Bool("master_key_set", c.MasterKey != ""),
		slog.String("master_key_file", c.MasterKeyFile),
		slog.String("registration", c.Registration),
		slog.Any("rate_limits_per_hour", c.Limits),
		slog.Int("body_limit_bytes", c.BodyLimit),
		slog.String("auth_cache_ttl", Duration(c.AuthCacheTTL)),
		slog.String("stale_if_error", Duration(c.StaleIfError)),
		slog.String("request_timeout", Duration(c.RequestTimeout)),
		slog.String("drift_tick", Duration(c.DriftTick)),
		slog.String("processor_stuck_after", Duration(c.ProcessorStuckAfter)),
		slog.Int64("ingest_max_backlog", c.IngestMaxBacklog),
		slog.String("dashboard_interval", Duration(c.DashboardInterval)),
		slog.String("kserve_pair_timeout", Duration(c.KServePairTimeout)),
		slog.String("shutdown_grace", Duration(c.ShutdownGrace)),
		slog.Any("bias", c.Bias),
		slog.Any("toxicity", c.Toxicity),
		slog.Int("explain_workers", c.ExplainWorkers),
		slog.Any("auto_explain", c.AutoExplain),
		slog.String("metrics_addr", engine(c.MetricsAddr != "", c.MetricsAddr, "the API's, loopback clients or token only")),
		slog.Bool("metrics_token_set", c.MetricsToken != ""),
		slog.String("codehost_api_url", redactURL(c.CodehostAPIURL)),
		slog.String("codehost_oauth_client_id", c.CodehostOAuth.ClientID),
		slog.String("export_files", engine(c.ExportS3.Endpoint != "", "s3 "+redactURL(c.ExportS3.Endpoint)+" bucket "+c.ExportS3.Bucket, "data folder")),
	)
}

func engine(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// redactURL hides the password of a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultMasterKeyFile is vigil/master.key in the user's configuration
// folder ($XDG_CONFIG_HOME or ~/.config on Linux), or "" when there is none
// (then VIGIL_MASTER_KEY or VIGIL_MASTER_KEY_FILE must be set).
func defaultMasterKeyFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vigil", "master.key")
}

// Getenv is os.Getenv, the lookup Parse uses in production.
var Getenv = os.Getenv

// Report history retention of spec 1's plans.
var retentionPlans = map[string]time.Duration{"free": 30 * 24 * time.Hour, "starter": 30 * 24 * time.Hour,
	"professional": 90 * 24 * time.Hour, "enterprise": 0}

// ExportRetention reads VIGIL_EXPORT_RETENTION: a plan name (free,
// starter, professional, enterprise) or a positive duration; 0 (the
// enterprise plan) keeps exports forever.
func ExportRetention(v string) (time.Duration, error) {
	if d, ok := retentionPlans[strings.ToLower(strings.TrimSpace(v))]; ok {
		return d, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want free, starter, professional, enterprise or a duration such as 2160h", v)
	}
	return d, nil
}

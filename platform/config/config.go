// Package config holds Vigil's configuration: flags with VIGIL_* environment
// variables as their defaults. With nothing set, Vigil runs on the embedded
// default: SQLite in the data folder and in-process limits.
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Roles a process can run (DESIGN §2).
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

// Limits are the per-organization rate limits, in requests per hour.
type Limits struct {
	Standard    int64 `json:"standard"`
	Predictions int64 `json:"predictions"`
	Batch       int64 `json:"batch"`
	Reports     int64 `json:"reports"`
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

// Config is the effective configuration of one process.
type Config struct {
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
	ClickHouseURL   string

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
	// Bias are the bias audit runner's limits.
	Bias     Bias
	LogLevel slog.Level
}

// Parse reads flags from args (after the subcommand), with defaults from
// the environment lookup getenv (os.Getenv in production).
func Parse(args []string, getenv func(string) string) (Config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var envErrs []error
	envInt := func(name string, def int64) int64 {
		v := getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			envErrs = append(envErrs, fmt.Errorf("%s: %w", name, err))
		}
		return n
	}
	envDuration := func(name string, def time.Duration) time.Duration {
		v := getenv(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			envErrs = append(envErrs, fmt.Errorf("%s: %w", name, err))
		}
		return d
	}
	var c Config
	var roles, brokers, logLevel string
	var bodyMB int
	var err error
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&c.Addr, "addr", env("VIGIL_ADDR", "127.0.0.1:8080"), "listen address (VIGIL_ADDR)")
	fs.StringVar(&c.DataDir, "data-dir", env("VIGIL_DATA_DIR", "./vigil-data"), "data folder of the embedded default (VIGIL_DATA_DIR)")
	fs.StringVar(&roles, "roles", env("VIGIL_ROLES", strings.Join(AllRoles, ",")), "roles to run: api,processor (VIGIL_ROLES)")
	fs.StringVar(&c.PostgresURL, "postgres-url", env("VIGIL_POSTGRES_URL", ""), "PostgreSQL URL; empty: SQLite in the data folder (VIGIL_POSTGRES_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", env("VIGIL_REDIS_URL", ""), "Redis URL for shared limits and caches; empty: in-process (VIGIL_REDIS_URL)")
	fs.StringVar(&c.RedisPrefix, "redis-prefix", env("VIGIL_REDIS_PREFIX", "vigil:"), "prefix of every Redis key (VIGIL_REDIS_PREFIX)")
	fs.StringVar(&brokers, "kafka-brokers", env("VIGIL_KAFKA_BROKERS", ""), "comma-separated Kafka brokers; empty: embedded log (VIGIL_KAFKA_BROKERS)")
	fs.StringVar(&c.KafkaTopicPrefix, "kafka-topic-prefix", env("VIGIL_KAFKA_TOPIC_PREFIX", "vigil."), "prefix of the event log's topics and consumer group (VIGIL_KAFKA_TOPIC_PREFIX)")
	fs.StringVar(&c.KafkaInstanceID, "kafka-instance-id", env("VIGIL_KAFKA_INSTANCE_ID", ""), "this processor's static consumer-group member id; empty: dynamic membership (VIGIL_KAFKA_INSTANCE_ID)")
	fs.StringVar(&c.ClickHouseURL, "clickhouse-url", env("VIGIL_CLICKHOUSE_URL", ""), "ClickHouse URL; empty: SQLite (VIGIL_CLICKHOUSE_URL)")
	fs.StringVar(&c.AdminUsername, "admin-username", env("VIGIL_ADMIN_USERNAME", "admin"), "first admin's username (VIGIL_ADMIN_USERNAME)")
	c.AdminPassword = getenv("VIGIL_ADMIN_PASSWORD")
	c.JWTSecret = getenv("VIGIL_JWT_SECRET")
	c.MasterKey = getenv("VIGIL_MASTER_KEY")
	fs.StringVar(&c.MasterKeyFile, "master-key-file", env("VIGIL_MASTER_KEY_FILE", defaultMasterKeyFile()),
		"master key file sealing stored secrets, created when missing; back it up apart from the data (VIGIL_MASTER_KEY_FILE)")
	fs.StringVar(&c.Registration, "registration", env("VIGIL_REGISTRATION", RegistrationAdmin), "who may register: admin or open (VIGIL_REGISTRATION)")
	fs.Int64Var(&c.Limits.Standard, "rate-limit-standard", envInt("VIGIL_RATE_LIMIT_STANDARD", 1000), "standard requests per hour per organization")
	fs.Int64Var(&c.Limits.Predictions, "rate-limit-predictions", envInt("VIGIL_RATE_LIMIT_PREDICTIONS", 10000), "prediction-logging requests per hour per organization")
	fs.Int64Var(&c.Limits.Batch, "rate-limit-batch", envInt("VIGIL_RATE_LIMIT_BATCH", 100), "batch requests per hour per organization")
	fs.Int64Var(&c.Limits.Reports, "rate-limit-reports", envInt("VIGIL_RATE_LIMIT_REPORTS", 10), "report generations per hour per organization")
	fs.IntVar(&bodyMB, "body-limit-mb", int(envInt("VIGIL_BODY_LIMIT_MB", 10)), "largest request body in MiB")
	fs.DurationVar(&c.AuthCacheTTL, "auth-cache-ttl", envDuration("VIGIL_AUTH_CACHE_TTL", time.Second), "how long a principal stays cached; 0 disables the cache")
	fs.DurationVar(&c.StaleIfError, "stale-if-error", envDuration("VIGIL_STALE_IF_ERROR", 5*time.Minute), "how long past its lifetime a cached API key, user or model still serves while PostgreSQL is unreachable; 0 disables (VIGIL_STALE_IF_ERROR)")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", envDuration("VIGIL_REQUEST_TIMEOUT", 30*time.Second), "per-request timeout")
	fs.DurationVar(&c.DriftTick, "drift-tick", envDuration("VIGIL_DRIFT_TICK", time.Minute), "how often due drift schedules are looked for")
	fs.IntVar(&c.Bias.Workers, "bias-workers", int(envInt("VIGIL_BIAS_WORKERS", 0)), "bias audits run at a time; 0: 2 (VIGIL_BIAS_WORKERS)")
	fs.IntVar(&c.Bias.Queue, "bias-queue", int(envInt("VIGIL_BIAS_QUEUE", 0)), "bias audits that may wait to run; 0: 64 (VIGIL_BIAS_QUEUE)")
	fs.IntVar(&c.Bias.MaxRows, "bias-max-rows", int(envInt("VIGIL_BIAS_MAX_ROWS", 0)), "rows of one bias audit at most; 0: 1000000 (VIGIL_BIAS_MAX_ROWS)")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", envDuration("VIGIL_SHUTDOWN_GRACE", 30*time.Second), "time to drain on SIGTERM")
	fs.StringVar(&logLevel, "log-level", env("VIGIL_LOG_LEVEL", "info"), "debug, info, warn or error")
	if err = errors.Join(envErrs...); err != nil {
		return Config{}, err
	}
	if err = fs.Parse(args); err != nil {
		return Config{}, err
	}
	c.BodyLimit = bodyMB << 20
	c.Roles = splitList(roles)
	c.KafkaBrokers = splitList(brokers)
	if err = c.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		return Config{}, fmt.Errorf("log level: %w", err)
	}
	return c, c.validate()
}

func (c Config) validate() error {
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
	if c.Bias.Workers < 0 || c.Bias.Queue < 0 || c.Bias.MaxRows < 0 {
		return fmt.Errorf("bias workers, queue and max rows must not be negative (0 takes the default)")
	}
	if c.BodyLimit <= 0 {
		return fmt.Errorf("body limit must be positive")
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
		slog.Duration("auth_cache_ttl", c.AuthCacheTTL),
		slog.Duration("stale_if_error", c.StaleIfError),
		slog.Duration("request_timeout", c.RequestTimeout),
		slog.Duration("drift_tick", c.DriftTick),
		slog.Any("bias", c.Bias),
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

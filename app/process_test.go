//go:build fault

package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// Helpers for the tests that run the real binary as child processes and
// kill or stop them (kill_test.go, drain_test.go).

// buildVigil compiles cmd/vigil.
func buildVigil(t *testing.T) string { return testenv.Build(t, "../cmd/vigil") }

// vigilEnv is cfg as the environment of `vigil serve`, plus extra
// VAR=value settings, which win.
func vigilEnv(cfg config.Config, extra ...string) []string {
	env := append(os.Environ(),
		"VIGIL_DATA_DIR="+cfg.DataDir,
		"VIGIL_MASTER_KEY_FILE="+cfg.MasterKeyFile,
		"VIGIL_ROLES="+strings.Join(cfg.Roles, ","),
		"VIGIL_POSTGRES_URL="+cfg.PostgresURL,
		"VIGIL_REDIS_URL="+cfg.RedisURL,
		"VIGIL_REDIS_PREFIX="+cfg.RedisPrefix,
		"VIGIL_KAFKA_BROKERS="+strings.Join(cfg.KafkaBrokers, ","),
		"VIGIL_KAFKA_TOPIC_PREFIX="+cfg.KafkaTopicPrefix,
		"VIGIL_CLICKHOUSE_URL="+cfg.ClickHouseURL,
		"VIGIL_ADMIN_PASSWORD="+cfg.AdminPassword,
		"VIGIL_REGISTRATION="+cfg.Registration,
		"VIGIL_RATE_LIMIT_BATCH="+strconv.FormatInt(cfg.Limits.Batch, 10),
		"VIGIL_SHUTDOWN_GRACE="+cfg.ShutdownGrace.String(),
	)
	return append(env, extra...)
}

// freeAddr returns a loopback address nothing listens on, so that a
// process restarted on it keeps its clients' URL.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// child is a running `vigil serve`.
type child struct {
	cmd  *exec.Cmd
	addr string // the HTTP address it listens on
	log  string // the file its log goes to
	done chan struct{}
	err  error // Wait's answer, once done is closed
}

// spawn starts `vigil serve --addr addr` with env, logging to a new file
// in dir, and returns once it listens. It reports errors rather than
// failing the test, so that a killer goroutine can call it.
func spawn(bin, addr, dir string, env []string) (*child, error) {
	f, err := os.CreateTemp(dir, "vigil-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--addr", addr)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, log: f.Name(), done: make(chan struct{})}
	listening := make(chan string, 1)
	go func() {
		defer f.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			f.Write(append(sc.Bytes(), '\n'))
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				listening <- line.Addr
			}
		}
		c.err = cmd.Wait()
		close(c.done)
	}()
	select {
	case c.addr = <-listening:
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("vigil exited before listening (%v); log in %s", c.err, c.log)
	case <-time.After(time.Minute):
		c.kill()
		return nil, fmt.Errorf("vigil not listening after a minute; log in %s", c.log)
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// terminate sends SIGTERM and waits up to wait for the exit; it returns
// the exit error (nil for status 0).
func (c *child) terminate(wait time.Duration) error {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-c.done:
		return c.err
	case <-time.After(wait):
		c.kill()
		return errors.New("still running after " + wait.String())
	}
}

// clientOf is a test client of a child's API.
func clientOf(t *testing.T, addr string) *server {
	return &server{t: t, base: "http://" + addr + "/api/v1"}
}

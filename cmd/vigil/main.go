// Command vigil is the Vigil server: `vigil serve` runs it (every role by
// default, or those named with --roles), `vigil version` prints its version,
// `vigil keygen` a new master key and `vigil health` whether a server is ready.
//
// It imports app and the platform's config, telemetry and secretbox, nothing else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/vigilhq/vigil/app"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/telemetry"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `Vigil monitors machine-learning models and LLM calls and governs AI risk.

Usage:
  vigil serve [flags]   run the server (vigil serve -h lists the flags)
  vigil version         print the version
  vigil keygen          print a new master key (for VIGIL_MASTER_KEY or the key file)
  vigil health [addr]   exit 0 when the server at addr (VIGIL_ADDR) is ready, for health checks
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "version":
		fmt.Fprintln(stdout, "vigil", buildVersion())
		return 0
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "keygen":
		return keygen(stdout, stderr)
	case "health":
		return health(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
	return 2
}

func serve(args []string, stdout, stderr io.Writer) int {
	cfg, err := config.Parse(args, config.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		config.Usage(stdout, config.Getenv)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "vigil: %v (vigil serve -h lists the flags)\n", err)
		return 2
	}
	cfg.Version = buildVersion()
	log := telemetry.NewLogger(stderr, cfg.LogLevel)
	slog.SetDefault(log)
	log.Info("starting vigil", "version", buildVersion(), "config", cfg)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		log.Error("start failed", "err", err)
		return 1
	}
	defer a.Close()
	log.Info("listening", "addr", a.Addr(), "metrics_addr", a.MetricsAddr(), "roles", cfg.Roles)
	if err := a.Run(ctx); err != nil {
		log.Error("stopped", "err", err)
		return 1
	}
	log.Info("stopped cleanly")
	return 0
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

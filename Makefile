# Vigil. `make test` starts the real engines (platform/testenv/engines.sh) and runs every test
# against them; `make test-short` runs the tests without engines.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO ?= go
PKGS ?= ./...
ENGINES := platform/testenv/engines.sh
GO_TEST_FLAGS ?= -count=1 -race=false -timeout 30m -v
# What `make test` shows of go test's output while it runs (everything goes to .test.log);
# the summary after it lists the engines each package ran on.
TEST_FILTER := ^(ok|FAIL|--- FAIL|panic:)

.PHONY: build run engines engines-down engines-status test test-fault test-forge test-short fmt vet clean

# A stripped release build: no symbol table or DWARF (-s -w), no build machine's paths (-trimpath),
# the version from git.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
build:
	$(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o bin/vigil ./cmd/vigil

run: build
	bin/vigil serve

engines:
	$(ENGINES) up

engines-down:
	$(ENGINES) down

engines-status:
	$(ENGINES) status

# Two passes: every suite, then the fault tests (build tag fault), which stop and kill the
# shared engines and so run one package at a time. The same pass runs app's process-fault
# tests (TestFaultProcessorKill, TestFaultServeKill, TestFaultSIGTERMDrain: a few minutes),
# which build the binary and SIGKILL or SIGTERM only the Vigil processes they start. Exit status: non-zero when either pass
# fails. The last line is "N passed, N failed, N skipped" over both.
test:
	$(ENGINES) up
	@eval "$$($(ENGINES) env)"; \
	set +e; \
	{ $(GO) test $(GO_TEST_FLAGS) $(PKGS); s1=$$?; \
	  $(GO) test $(GO_TEST_FLAGS) -tags fault -p 1 -run '^TestFault' $(PKGS); s2=$$?; \
	  [ $$s1 -eq 0 ] && [ $$s2 -eq 0 ]; } 2>&1 | tee .test.log | grep --line-buffered -E '$(TEST_FILTER)' | grep -v 'no tests to run'; \
	status=$${PIPESTATUS[0]}; \
	set -e; \
	platform/testenv/test-summary.sh .test.log "$$status"; \
	exit "$$status"

test-fault:
	$(ENGINES) up
	@eval "$$($(ENGINES) env)"; $(GO) test $(GO_TEST_FLAGS) -tags fault -p 1 -run '^TestFault' $(PKGS)

# The code-host test against a real Gitea alone (`make test` runs it too): Gitea is built from its
# Go module first, in the foreground (see engines.sh), then the test runs on both stores.
test-forge:
	$(ENGINES) up
	$(ENGINES) gitea-build
	@eval "$$($(ENGINES) env)"; $(GO) test $(GO_TEST_FLAGS) -run '^TestCodehostGitea' ./app

# Without engines (a newcomer's machine): the tests that need one skip.
# The timeout is make test's, for a loaded machine (the image build step
# and the README's walk-through take minutes there).
test-short:
	$(GO) test -short -count=1 -timeout 30m $(PKGS)

fmt:
	$(GO) fmt $(PKGS)

vet:
	$(GO) vet $(PKGS)

clean:
	rm -rf bin .test.log

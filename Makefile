# schedtui — see README.md. Every target works on a machine with only Go.
GO      ?= go
BIN     := bin/schedtui
PKGS    := ./...
# Nested modules with heavy test-only dependencies (the real upstream
# scheduler). Their Go build cache is shared, so only the first run is slow.
NESTED  := conformance

.PHONY: all build run tmux test test-main test-nested vet fmt-check bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/schedtui

# Opens the interactive debugger on the embedded demo snapshot.
run: build
	./$(BIN) --demo

test: tmux fmt-check vet test-main test-nested

# The TUI's end-to-end test drives the real binary in tmux.
tmux:
	@command -v tmux >/dev/null || (apt-get update && apt-get install -y tmux)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	@for m in $(NESTED); do (cd $$m && $(GO) vet ./...) || exit 1; done

test-main:
	$(GO) test -count=1 $(PKGS)

test-nested:
	@for m in $(NESTED); do echo "== $$m"; (cd $$m && $(GO) test -count=1 -timeout 40m ./...) || exit 1; done

# Includes the TUI's key-press benchmark at 5000 nodes × 10 plugins
# (BenchmarkKeyPress in ./tui; the frame budget is 16ms/op).
bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

clean:
	rm -rf bin

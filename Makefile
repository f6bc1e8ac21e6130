# schedtui — see README.md. Every target works on a machine with only Go.
GO      ?= go
BIN     := bin/schedtui
PKGS    := ./...
# Nested modules with heavy test-only dependencies: the real upstream
# scheduler (conformance) and a real kube-apiserver on an embedded etcd
# (e2e). They share the Go build cache, so only the first run is slow.
NESTED  := conformance e2e

.PHONY: all build run tmux test test-main test-nested vet fmt-check bench fuzz clean $(addprefix test-nested-,$(NESTED))

all: build

build:
	$(GO) build -o $(BIN) ./cmd/schedtui

# Opens the interactive debugger on the embedded demo snapshot.
run: build
	./$(BIN) --demo

test: tmux fmt-check vet test-main fuzz test-nested

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

# The end-to-end suite runs first and alone: it judges a real
# kube-scheduler's decisions from what the API server delivers, and the
# differential suite beside it would load both cores and stretch the real
# scheduler's informer lag past what shadow mode reconstructs. Then the
# differential suite, which keeps both cores busy by itself.
test-nested:
	@$(MAKE) --no-print-directory test-nested-e2e
	@$(MAKE) --no-print-directory test-nested-conformance

$(addprefix test-nested-,$(NESTED)): test-nested-%:
	@echo "== $*"; cd $* && $(GO) test -count=1 -timeout 40m ./...

# Includes the TUI's key-press benchmark at 5000 nodes × 10 plugins
# (BenchmarkKeyPress in ./tui; the frame budget is 16ms/op) and the
# loader's at 5000 nodes and 150,000 pods (BenchmarkLoadScale in
# ./snapshot, one run of about a minute: typed-decode-s, load-s and their
# ratio, whose budget is 1.5; SCHEDTUI_BENCH_NODES/SCHEDTUI_BENCH_PODS
# shrink it), and, in e2e/, the initial sync of a live cluster of 5000
# nodes and 50,000 pods from a real kube-apiserver (BenchmarkLiveSync:
# sync-s; filling the API server takes a few minutes first).
# Memory bounds: BenchmarkRunHeadless (./cmd/schedtui: `run` on 5000 nodes
# and 20,000 pending pods, peak-rss-MiB under 1024) and, on its own with a
# long timeout, BenchmarkLongReplay (./scheduler/engine: a day of churn on
# 5000 nodes under the debugger's retention, peak-rss-MiB under 2048, the
# last hour rewound; about ten minutes per simulated hour on the shared
# two-core machine, so hours: -v prints the figures each simulated hour,
# SCHEDTUI_BENCH_MINUTES shortens it). Measured (README): 1520 MiB after four
# simulated hours, the rewind window full; the whole day not run to its end.
bench:
	$(GO) test -run='^$$' -bench=. -skip='^BenchmarkLongReplay$$' -benchmem $(PKGS)
	$(GO) test -run='^$$' -bench='^BenchmarkLongReplay$$' -benchtime=1x -timeout 6h -v ./scheduler/engine
	cd e2e && $(GO) test -run='^$$' -bench=LiveSync -benchtime=1x -timeout 30m .

# Fuzzes the snapshot loader (FuzzLoad), the JSON scanner it reads with
# against encoding/json (FuzzJSONScan, in internal/docread), the scheduler
# configuration loader (FuzzLoadConfig, in scheduler/apis/config) and the
# recording reader (FuzzReadRecording), FUZZTIME each. A failing input is written to
# testdata/fuzz/<target>/ in the target's package, where every `go test`
# replays it.
FUZZTIME ?= 20s
FUZZ    := ./snapshot:FuzzLoad ./internal/docread:FuzzJSONScan ./scheduler/apis/config:FuzzLoadConfig ./snapshot:FuzzReadRecording
fuzz:
	@for t in $(FUZZ); do p=$${t%%:*}; f=$${t##*:}; echo "== $$f ($$p)"; \
		$(GO) test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$p || exit 1; done

clean:
	rm -rf bin
